"use client";

import { useState, type FormEvent } from "react";
import { errorMessage, fieldErrors } from "@/components/api/client";
import type { Profile, User } from "@/components/api/types";
import { useTextFields } from "@/components/hooks/use-text-fields";
import { useChangeOwnEmail, useChangeOwnPassword, useOwnProfile } from "@/components/hooks/use-users";
import { Button } from "@/components/ui/button";
import { TextField, TextFields } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { AccountTokens } from "@/components/tokens/account-tokens";
import { Panel } from "@/components/ui/panel";

const PASSWORD_FIELDS = [
  {
    name: "currentPassword",
    label: "Current password",
    type: "password",
    autoComplete: "current-password",
    "data-testid": "current-password",
  },
  {
    name: "newPassword",
    label: "New password (10+ characters)",
    type: "password",
    autoComplete: "new-password",
    "data-testid": "new-password",
  },
] as const;

/** Your email: the `{user.email}` default of forms ("Notice to" in user-accounts). */
function EmailPanel() {
  const profile = useOwnProfile();
  return (
    <Panel title="Your email" className="mt-6 max-w-lg">
      {profile.isPending ? (
        <p className="text-sm text-zinc-500">Loading…</p>
      ) : profile.isError ? (
        <p className="text-sm text-red-700">{errorMessage(profile.error)}</p>
      ) : (
        // Keyed by the stored email: a saved change starts the form again from it.
        <EmailForm key={profile.data.email ?? ""} profile={profile.data} />
      )}
    </Panel>
  );
}

function EmailForm({ profile }: { profile: Profile }) {
  const change = useChangeOwnEmail();
  const [email, setEmail] = useState(profile.email ?? "");
  const sso = profile.source !== "local";
  const fields = fieldErrors(change.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate(email);
  };

  return (
    <form className="space-y-3" onSubmit={submit} noValidate>
      <TextField
        label="Email"
        type="email"
        autoComplete="email"
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        disabled={sso}
        help={
          sso
            ? "Your single sign-on provider sets it at each sign-in."
            : "Forms fill it in where they ask for your email. Leave it empty to have none."
        }
        error={fields.email && `Email ${fields.email}`}
        data-testid="own-email"
      />
      {!sso && (
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" disabled={change.isPending} data-testid="save-email">
            {change.isPending ? "Saving…" : "Save email"}
          </Button>
          {change.isError && Object.keys(fields).length === 0 && <span className="text-sm text-red-700">{errorMessage(change.error)}</span>}
        </div>
      )}
    </form>
  );
}

export function AccountClient({ user }: { user: User }) {
  const change = useChangeOwnPassword();
  const fields = fieldErrors(change.error);
  // The server's messages ("is wrong") read as the end of a sentence that names the field.
  const { values, bind, reset } = useTextFields(
    { currentPassword: "", newPassword: "" },
    {
      currentPassword: fields.currentPassword && `Current password ${fields.currentPassword}`,
      newPassword: fields.newPassword && `New password ${fields.newPassword}`,
    },
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate(values, { onSuccess: reset });
  };

  return (
    <>
      <PageHeader title="Your account" description={`Signed in as ${user.username} (${user.role}).`} />
      <Panel title="Change your password" className="max-w-lg">
        <form className="space-y-3" onSubmit={submit} noValidate>
          <TextFields fields={PASSWORD_FIELDS} bind={bind} />
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
      <EmailPanel />
      <div className="mt-6">
        <AccountTokens />
      </div>
    </>
  );
}
