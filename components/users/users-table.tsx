"use client";

import { useState } from "react";
import { errorMessage } from "@/components/api/client";
import type { User, UserAccount } from "@/components/api/types";
import { inputClass } from "@/components/forms/field-styles";
import { useUserChange } from "@/components/hooks/use-users";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { formatDateTime } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";

/** Accounts with their role, job count and the actions an admin has on them. */
export function UsersTable({ users, me }: { users: UserAccount[]; me: User }) {
  return (
    <Panel title={`Users (${users.length})`} bodyClassName="p-0">
      <table className="w-full text-sm" data-testid="users-table">
        <thead className="bg-zinc-50 text-left text-xs font-semibold tracking-wide text-zinc-500 uppercase">
          <tr>
            <th className="px-4 py-2">User</th>
            <th className="px-4 py-2">Role</th>
            <th className="px-4 py-2 text-right">Jobs</th>
            <th className="px-4 py-2">Created</th>
            <th className="px-4 py-2" />
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {users.map((user) => (
            <UserRow key={user.id} user={user} isMe={user.id === me.id} />
          ))}
        </tbody>
      </table>
    </Panel>
  );
}

function UserRow({ user, isMe }: { user: UserAccount; isMe: boolean }) {
  const change = useUserChange();
  const [resetting, setResetting] = useState(false);
  const [password, setPassword] = useState("");

  return (
    <tr data-testid={`user-row-${user.username}`}>
      <td className="px-4 py-2 font-medium text-zinc-900">
        {user.username}
        {isMe && <span className="ml-2 text-xs font-normal text-zinc-500">(you)</span>}
      </td>
      <td className="px-4 py-2">
        <span
          className={
            user.role === "admin"
              ? "rounded bg-indigo-50 px-1.5 py-0.5 text-xs font-semibold text-indigo-700"
              : "rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-700"
          }
        >
          {user.role}
        </span>
      </td>
      <td className="px-4 py-2 text-right tabular-nums">{user.jobs}</td>
      <td className="px-4 py-2 text-zinc-600">{formatDateTime(user.createdAt)}</td>
      <td className="px-4 py-2">
        <div className="flex flex-wrap items-center justify-end gap-1.5">
          {change.isError && <span className="text-xs text-red-700">{errorMessage(change.error)}</span>}
          {resetting ? (
            <form
              className="flex items-center gap-1.5"
              onSubmit={(event) => {
                event.preventDefault();
                change.mutate(
                  { kind: "update", username: user.username, password },
                  { onSuccess: () => (setResetting(false), setPassword("")) },
                );
              }}
            >
              <input
                className={inputClass(false, "w-44")}
                type="password"
                placeholder="New password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                autoComplete="new-password"
              />
              <Button size="sm" type="submit" variant="primary" disabled={change.isPending}>
                Set
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setResetting(false)}>
                Cancel
              </Button>
            </form>
          ) : (
            <Button size="sm" onClick={() => setResetting(true)}>
              Reset password
            </Button>
          )}
          {!isMe && (
            <ConfirmButton
              question={user.role === "admin" ? "Make a user?" : "Make an admin?"}
              confirmLabel="Yes"
              onConfirm={() => change.mutate({ kind: "update", username: user.username, role: user.role === "admin" ? "user" : "admin" })}
              pending={change.isPending}
              testId={`toggle-role-${user.username}`}
            >
              {user.role === "admin" ? "Make user" : "Make admin"}
            </ConfirmButton>
          )}
          {!isMe && user.jobs === 0 && (
            <ConfirmButton
              variant="danger"
              question={`Delete ${user.username}?`}
              confirmLabel="Delete"
              onConfirm={() => change.mutate({ kind: "delete", username: user.username })}
              pending={change.isPending}
            >
              Delete
            </ConfirmButton>
          )}
        </div>
      </td>
    </tr>
  );
}
