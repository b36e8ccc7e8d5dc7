import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { PersonalToken } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** Your personal and sign-in tokens, or (admins) everyone's. */
export function useTokens(whose: "mine" | "all") {
  return useQuery({
    queryKey: queryKeys.tokens(whose),
    queryFn: async ({ signal }) =>
      (await apiFetch<{ tokens: PersonalToken[] }>(whose === "all" ? "/api/tokens?all=1" : "/api/tokens", { signal })).tokens,
  });
}

/** Makes a personal token; the answer holds its secret, shown once. */
export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; scope: string; expiresInDays?: number; expiresAt?: string }) =>
      apiFetch<PersonalToken & { token: string }>("/api/tokens", { method: "POST", body: input }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["tokens"] }),
  });
}

/** Revokes a personal or sign-in token, and the tokens it made (yours, or anyone's for an admin). */
export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch(`/api/tokens/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["tokens"] }),
  });
}
