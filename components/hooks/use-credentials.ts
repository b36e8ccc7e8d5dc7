import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Credential } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** Every stored credential (admins only): names, kinds, descriptions, the forms using them. */
export function useCredentials() {
  return useQuery({
    queryKey: queryKeys.credentials(),
    queryFn: async ({ signal }) => (await apiFetch<{ credentials: Credential[] }>("/api/credentials", { signal })).credentials,
  });
}

/** The secret of a credential as the API takes it, by kind. */
export type CredentialSecret =
  | { kind: "ssh"; username: string; privateKey: string }
  | { kind: "vault"; password: string }
  | { kind: "secret"; variables: Record<string, string> };

export type CredentialChange =
  | { action: "create"; name: string; description: string; secret: CredentialSecret }
  | { action: "replace"; name: string; description: string; secret: CredentialSecret }
  | { action: "delete"; name: string };

/** Create, replace the secret of, or delete a credential; the list is reloaded afterwards. */
export function useCredentialChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (change: CredentialChange) => {
      if (change.action === "create") {
        await apiFetch("/api/credentials", {
          method: "POST",
          body: { name: change.name, description: change.description, ...change.secret },
        });
        return;
      }
      const path = `/api/credentials/${encodeURIComponent(change.name)}`;
      if (change.action === "replace") await apiFetch(path, { method: "PUT", body: { description: change.description, ...change.secret } });
      else await apiFetch(path, { method: "DELETE" });
    },
    // Also after a 409: a form may have started naming the credential meanwhile; show the real state.
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.credentials() }),
  });
}
