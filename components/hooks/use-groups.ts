import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Group } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** Every group with its members (admins only). */
export function useGroups() {
  return useQuery({
    queryKey: queryKeys.groups(),
    queryFn: async ({ signal }) => (await apiFetch<{ groups: Group[] }>("/api/groups", { signal })).groups,
  });
}

export type GroupChange =
  | { kind: "create"; name: string; description: string }
  | { kind: "members"; name: string; users: string[] }
  | { kind: "delete"; name: string };

/** Create a group, replace its members or delete it; the list is reloaded afterwards. */
export function useGroupChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (change: GroupChange) => {
      if (change.kind === "create") {
        await apiFetch("/api/groups", { method: "POST", body: { name: change.name, description: change.description } });
      } else if (change.kind === "members") {
        await apiFetch(`/api/groups/${encodeURIComponent(change.name)}/members`, { method: "PUT", body: { users: change.users } });
      } else {
        await apiFetch(`/api/groups/${encodeURIComponent(change.name)}`, { method: "DELETE" });
      }
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.groups() }),
  });
}
