"use client";

import { useState } from "react";
import { errorMessage, fieldErrors } from "@/components/api/client";
import type { User, UserAccount } from "@/components/api/types";
import { inputClass } from "@/components/ui/field";
import { useUserChange } from "@/components/hooks/use-users";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { DataTable, type Column } from "@/components/ui/data-table";
import { formatDateTime } from "@/components/ui/format";

/** Accounts with their role, job count and the actions an admin has on them. */
export function UsersTable({ users, me }: { users: UserAccount[]; me: User }) {
  const columns: Column<UserAccount>[] = [
    {
      key: "user",
      header: "User",
      className: "font-medium text-zinc-900",
      cell: (user) => (
        <>
          {user.username}
          {user.id === me.id && <span className="ml-2 text-xs font-normal text-zinc-500">(you)</span>}
        </>
      ),
    },
    {
      key: "role",
      header: "Role",
      cell: (user) => (
        <span
          className={
            user.role === "admin"
              ? "rounded bg-indigo-50 px-1.5 py-0.5 text-xs font-semibold text-indigo-700"
              : "rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-700"
          }
        >
          {user.role}
        </span>
      ),
    },
    { key: "email", header: "Email", cell: (user) => <EmailCell user={user} /> },
    { key: "jobs", header: "Jobs", align: "right", className: "tabular-nums", cell: (user) => user.jobs },
    { key: "created", header: "Created", className: "text-zinc-600", cell: (user) => formatDateTime(user.createdAt) },
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      cell: (user) => <UserActions user={user} isMe={user.id === me.id} />,
    },
  ];
  return (
    <DataTable
      title={`Users (${users.length})`}
      testId="users-table"
      rows={users}
      columns={columns}
      row={(user) => ({ key: user.id, "data-testid": `user-row-${user.username}` })}
    />
  );
}

/** A user's email (the `{user.email}` of forms), set by the admin here; single sign-on accounts get it from their provider. */
function EmailCell({ user }: { user: UserAccount }) {
  const change = useUserChange();
  const [editing, setEditing] = useState(false);
  const [email, setEmail] = useState(user.email ?? "");
  const fields = fieldErrors(change.error);
  if (!editing) {
    return (
      <span className="flex items-center gap-2" data-testid={`email-${user.username}`}>
        <span className={user.email ? "text-zinc-700" : "text-zinc-400"}>{user.email ?? "none"}</span>
        {user.source === "local" ? (
          <Button size="sm" variant="ghost" onClick={() => (setEmail(user.email ?? ""), setEditing(true))}>
            Edit
          </Button>
        ) : (
          <span className="text-xs text-zinc-400" title="Set by the single sign-on provider at each sign-in">
            (from sign-on)
          </span>
        )}
      </span>
    );
  }
  return (
    <form
      className="flex flex-wrap items-center gap-1.5"
      onSubmit={(event) => {
        event.preventDefault();
        change.mutate({ kind: "update", username: user.username, email }, { onSuccess: () => setEditing(false) });
      }}
    >
      <input
        className={inputClass(Boolean(fields.email), "w-56")}
        type="email"
        aria-label={`Email of ${user.username}`}
        placeholder="name@example.org"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <Button size="sm" type="submit" variant="primary" disabled={change.isPending}>
        Save
      </Button>
      <Button size="sm" variant="ghost" onClick={() => setEditing(false)}>
        Cancel
      </Button>
      {change.isError && (
        <span className="text-xs text-red-700">{fields.email ? `Email ${fields.email}` : errorMessage(change.error)}</span>
      )}
    </form>
  );
}

function UserActions({ user, isMe }: { user: UserAccount; isMe: boolean }) {
  const change = useUserChange();
  const [resetting, setResetting] = useState(false);
  const [password, setPassword] = useState("");

  return (
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
  );
}
