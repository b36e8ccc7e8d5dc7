import { useMutation } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { User } from "@/components/api/types";

export function useLogin() {
  return useMutation({
    mutationFn: (credentials: { username: string; password: string }) =>
      // A 401 here means wrong credentials, not an expired session: no redirect.
      apiFetch<{ user: User }>("/api/auth/login", { method: "POST", body: credentials, redirectOnUnauthorized: false }),
  });
}
