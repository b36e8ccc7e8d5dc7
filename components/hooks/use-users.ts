import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Role, UserAccount } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** Every account (admins only). */
export function useUsers() {
  return useQuery({
    queryKey: queryKeys.users(),
    queryFn: async ({ signal }) => (await apiFetch<{ users: UserAccount[] }>("/api/users", { signal })).users,
  });
}

export type UserChange =
  | { kind: "create"; username: string; password: string; role: Role }
  | { kind: "update"; username: string; role?: Role; password?: string }
  | { kind: "delete"; username: string };

/** Create, change or delete an account; the list is reloaded afterwards. */
export function useUserChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (change: UserChange) => {
      const path = `/api/users${change.kind === "create" ? "" : `/${encodeURIComponent(change.username)}`}`;
      if (change.kind === "create") {
        await apiFetch(path, { method: "POST", body: { username: change.username, password: change.password, role: change.role } });
      } else if (change.kind === "update") {
        await apiFetch(path, { method: "PATCH", body: { role: change.role, password: change.password } });
      } else {
        await apiFetch(path, { method: "DELETE" });
      }
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.users() }),
  });
}

/** Change your own password. */
export function useChangeOwnPassword() {
  return useMutation({
    mutationFn: async (input: { currentPassword: string; newPassword: string }) =>
      apiFetch("/api/auth/password", { method: "POST", body: input }),
  });
}
