import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<void>("/api/auth/logout", { method: "POST", redirectOnUnauthorized: false }),
    // Whatever the next user sees must not come from this user's cache.
    onSettled: () => queryClient.clear(),
  });
}
