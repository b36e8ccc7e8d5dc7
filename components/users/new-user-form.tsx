"use client";

import { useState, type FormEvent } from "react";
import { ApiError, errorMessage } from "@/components/api/client";
import type { Role } from "@/components/api/types";
import { inputClass } from "@/components/forms/field-styles";
import { useUserChange } from "@/components/hooks/use-users";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/panel";

/** Creates an account; the server's field messages appear under the fields they concern. */
export function NewUserForm() {
  const change = useUserChange();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<Role>("user");
  const fields = change.error instanceof ApiError ? change.error.fields : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate(
      { kind: "create", username: username.trim(), password, role },
      {
        onSuccess: () => {
          setUsername("");
          setPassword("");
          setRole("user");
        },
      },
    );
  };

  return (
    <Panel title="Add a user">
      <form className="grid gap-3 sm:grid-cols-[1fr_1fr_auto_auto] sm:items-start" onSubmit={submit} noValidate>
        <label className="text-xs text-zinc-600">
          Username
          <input
            className={inputClass(Boolean(fields.username), "mt-1")}
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            autoComplete="off"
            data-testid="new-user-name"
          />
          {fields.username && <span className="mt-1 block text-red-700">{fields.username}</span>}
        </label>
        <label className="text-xs text-zinc-600">
          Initial password (10+ characters)
          <input
            className={inputClass(Boolean(fields.password), "mt-1")}
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoComplete="new-password"
            data-testid="new-user-password"
          />
          {fields.password && <span className="mt-1 block text-red-700">{fields.password}</span>}
        </label>
        <label className="text-xs text-zinc-600">
          Role
          <select className={inputClass(false, "mt-1")} value={role} onChange={(e) => setRole(e.target.value as Role)}>
            <option value="user">user</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <Button type="submit" variant="primary" className="sm:mt-5" disabled={change.isPending} data-testid="new-user-submit">
          {change.isPending ? "Adding…" : "Add user"}
        </Button>
      </form>
      {change.isError && Object.keys(fields).length === 0 && (
        <p className="mt-2 text-sm text-red-700" data-testid="new-user-error">
          {errorMessage(change.error)}
        </p>
      )}
    </Panel>
  );
}
