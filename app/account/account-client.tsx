"use client";

import { useState, type FormEvent } from "react";
import { ApiError, errorMessage } from "@/components/api/client";
import type { User } from "@/components/api/types";
import { inputClass } from "@/components/forms/field-styles";
import { useChangeOwnPassword } from "@/components/hooks/use-users";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { Panel } from "@/components/ui/panel";

export function AccountClient({ user }: { user: User }) {
  const change = useChangeOwnPassword();
  const [currentPassword, setCurrent] = useState("");
  const [newPassword, setNew] = useState("");
  const fields = change.error instanceof ApiError ? change.error.fields : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate({ currentPassword, newPassword }, { onSuccess: () => (setCurrent(""), setNew("")) });
  };

  return (
    <>
      <PageHeader title="Your account" description={`Signed in as ${user.username} (${user.role}).`} />
      <Panel title="Change your password" className="max-w-lg">
        <form className="space-y-3" onSubmit={submit} noValidate>
          <label className="block text-xs text-zinc-600">
            Current password
            <input
              className={inputClass(Boolean(fields.currentPassword), "mt-1")}
              type="password"
              value={currentPassword}
              onChange={(e) => setCurrent(e.target.value)}
              autoComplete="current-password"
              data-testid="current-password"
            />
            {fields.currentPassword && <span className="mt-1 block text-red-700">Current password {fields.currentPassword}</span>}
          </label>
          <label className="block text-xs text-zinc-600">
            New password (10+ characters)
            <input
              className={inputClass(Boolean(fields.newPassword), "mt-1")}
              type="password"
              value={newPassword}
              onChange={(e) => setNew(e.target.value)}
              autoComplete="new-password"
              data-testid="new-password"
            />
            {fields.newPassword && <span className="mt-1 block text-red-700">New password {fields.newPassword}</span>}
          </label>
          <div className="flex items-center gap-3">
            <Button type="submit" variant="primary" disabled={change.isPending} data-testid="change-password">
              {change.isPending ? "Saving…" : "Change password"}
            </Button>
            {change.isSuccess && (
              <span className="text-sm text-green-700" data-testid="password-changed">
                Password changed.
              </span>
            )}
            {change.isError && Object.keys(fields).length === 0 && (
              <span className="text-sm text-red-700">{errorMessage(change.error)}</span>
            )}
          </div>
        </form>
      </Panel>
    </>
  );
}
