"use client";

import { useState, type FormEvent } from "react";
import { errorMessage, fieldErrors } from "@/components/api/client";
import { useCreateToken } from "@/components/hooks/use-tokens";
import { Button } from "@/components/ui/button";
import { Field, TextField } from "@/components/ui/field";

const EXPIRY_DAYS = [7, 30, 90, 365] as const;

/** What each scope lets a token do (server/access/token-scopes.ts). */
const SCOPES = [
  { value: "admin", label: "Everything you may" },
  { value: "launch", label: "Read, launch and abort jobs" },
  { value: "read", label: "Read only" },
] as const;
type Scope = (typeof SCOPES)[number]["value"];

/** Makes a personal token and shows its secret once, with a copy button and a warning. */
export function NewTokenForm() {
  const create = useCreateToken();
  const fields = fieldErrors(create.error);
  const [name, setName] = useState("");
  const [scope, setScope] = useState<Scope>("admin");
  /** A number of days, or "date": the date field below says when. */
  const [expiry, setExpiry] = useState<number | "date">(30);
  const [date, setDate] = useState("");
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const [copied, setCopied] = useState(false);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCopied(false);
    // A date ends the token at the end of that day, in the browser's time zone.
    const until = expiry === "date" ? (date ? new Date(`${date}T23:59:59`).toISOString() : "") : null;
    create.mutate(
      { name: name.trim(), scope, ...(until === null ? { expiresInDays: expiry as number } : { expiresAt: until }) },
      {
        onSuccess: (made) => {
          setSecret({ name: made.name, token: made.token });
          setName("");
        },
      },
    );
  };

  const copy = async () => {
    if (!secret) return;
    await navigator.clipboard.writeText(secret.token);
    setCopied(true);
  };

  return (
    <div className="space-y-3">
      {secret && (
        <div className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3" data-testid="new-token-secret-box">
          <p className="text-sm font-medium text-amber-900">
            Copy the token &ldquo;{secret.name}&rdquo; now: it is shown only this once and cannot be read again.
          </p>
          <div className="flex items-center gap-2">
            <code className="flex-1 rounded bg-white px-2 py-1 font-mono text-xs break-all text-zinc-900" data-testid="new-token-secret">
              {secret.token}
            </code>
            <Button size="sm" onClick={() => void copy()} data-testid="copy-token">
              {copied ? "Copied" : "Copy"}
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setSecret(null)} data-testid="dismiss-token">
              Done
            </Button>
          </div>
          <p className="text-xs text-amber-900">
            Scripts send it as <code className="font-mono">Authorization: Bearer TOKEN</code>. It acts as you, with your role, within its
            scope.
          </p>
        </div>
      )}
      <form className="grid gap-3 sm:grid-cols-[1fr_auto_auto_auto_auto] sm:items-start" onSubmit={submit} noValidate>
        <TextField
          label="Token name"
          help="What uses it: “backup script”, “CI deploy”"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fields.name && `Name ${fields.name}`}
          maxLength={100}
          autoComplete="off"
          data-testid="new-token-name"
        />
        <Field label="Scope" error={fields.scope}>
          {(control) => (
            <select {...control} value={scope} onChange={(e) => setScope(e.target.value as Scope)} data-testid="new-token-scope">
              {SCOPES.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.value}: {s.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Expires in" error={fields.expiresInDays}>
          {(control) => (
            <select
              {...control}
              value={expiry}
              onChange={(e) => setExpiry(e.target.value === "date" ? "date" : Number(e.target.value))}
              data-testid="new-token-days"
            >
              {EXPIRY_DAYS.map((d) => (
                <option key={d} value={d}>
                  {d} days
                </option>
              ))}
              <option value="date">on a date…</option>
            </select>
          )}
        </Field>
        {expiry === "date" && (
          <Field label="Expires on" error={fields.expiresAt}>
            {(control) => (
              <input {...control} type="date" value={date} onChange={(e) => setDate(e.target.value)} data-testid="new-token-date" />
            )}
          </Field>
        )}
        <Button type="submit" variant="primary" className="sm:mt-5" disabled={create.isPending} data-testid="new-token-submit">
          {create.isPending ? "Creating…" : "Create token"}
        </Button>
      </form>
      {create.isError && Object.keys(fields).length === 0 && (
        <p className="text-sm text-red-700" data-testid="new-token-error">
          {errorMessage(create.error)}
        </p>
      )}
    </div>
  );
}
