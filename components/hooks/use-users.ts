import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Profile, Role, UserAccount } from "@/components/api/types";
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
  | { kind: "update"; username: string; role?: Role; password?: string; email?: string | null }
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
        await apiFetch(path, { method: "PATCH", body: { role: change.role, password: change.password, email: change.email } });
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

/** Your own profile (GET /api/auth/me): the email forms use as `{user.email}`. */
export function useOwnProfile() {
  return useQuery({
    queryKey: queryKeys.ownProfile(),
    queryFn: async ({ signal }) => (await apiFetch<{ profile: Profile }>("/api/auth/me", { signal })).profile,
  });
}

/** Set your own email ("" clears it). */
export function useChangeOwnEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (email: string) =>
      (await apiFetch<{ profile: Profile }>("/api/auth/me", { method: "PATCH", body: { email } })).profile,
    onSuccess: (profile) => {
      queryClient.setQueryData(queryKeys.ownProfile(), profile);
      // Forms fill {user.email} defaults on the server: their cached copies are stale.
      void queryClient.invalidateQueries({ queryKey: ["forms"] });
    },
  });
}
