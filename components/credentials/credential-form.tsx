"use client";

import { useState, type FormEvent } from "react";
import { errorMessage, fieldErrors } from "@/components/api/client";
import type { Credential, CredentialKind } from "@/components/api/types";
import { useCredentialChange, type CredentialSecret } from "@/components/hooks/use-credentials";
import { useTextFields } from "@/components/hooks/use-text-fields";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { Field, TextField, inputClass } from "@/components/ui/field";

const KINDS: { kind: CredentialKind; label: string; help: string }[] = [
  { kind: "ssh", label: "SSH login", help: "ansible_user and a private key; the runner writes the key to a 0600 file for the job only." },
  { kind: "vault", label: "Vault password", help: "Opens ansible-vault encrypted files and strings; sent to ansible-playbook on stdin." },
  { kind: "secret", label: "Secret variables", help: "Extra variables only the playbook sees, masked in the output." },
];

const SHOWN_FIELDS = new Set(["name", "username", "privateKey", "passphrase", "password", "variables", "description"]);

interface VariableRow {
  key: number;
  name: string;
  value: string;
}

/**
 * The secret of a credential, per kind: a new credential (`existing` absent: name and kind
 * chosen here) or a replacement for an existing one (same kind). Secrets are never read back
 * from the server, so a replacement is typed in whole. The server's field messages appear
 * under the fields they concern.
 */
export function CredentialForm({ existing, onDone }: { existing?: Credential; onDone?: () => void }) {
  const change = useCredentialChange();
  const fields = fieldErrors(change.error);
  const text = useTextFields(
    { name: "", description: existing?.description ?? "", username: "", privateKey: "", password: "" },
    // The message about a passphrase goes under the key that needs one.
    { ...fields, privateKey: fields.privateKey ?? fields.passphrase },
  );
  const { name, description, username, privateKey, password } = text.values;
  const { error: keyError, ...keyInput } = text.bind("privateKey");
  const [kind, setKind] = useState<CredentialKind>(existing?.kind ?? "ssh");
  const [rows, setRows] = useState<VariableRow[]>([{ key: 0, name: "", value: "" }]);
  const [nextKey, setNextKey] = useState(1);
  const [duplicate, setDuplicate] = useState<string | null>(null);
  const prefix = existing ? `replace-${existing.name}` : "new-credential";

  const secret = (): CredentialSecret => {
    switch (kind) {
      case "ssh":
        return { kind, username: username.trim(), privateKey };
      case "vault":
        return { kind, password };
      case "secret":
        return { kind, variables: Object.fromEntries(rows.filter((r) => r.name.trim() !== "").map((r) => [r.name.trim(), r.value])) };
    }
  };

  const reset = () => {
    text.reset();
    setRows([{ key: nextKey, name: "", value: "" }]);
    setNextKey(nextKey + 1);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Two rows with one name would silently collapse into one variable: say so instead.
    const names = rows.map((r) => r.name.trim()).filter(Boolean);
    const twice = names.find((n, i) => names.indexOf(n) !== i) ?? null;
    setDuplicate(kind === "secret" ? twice : null);
    if (kind === "secret" && twice) return;
    const body = { name: existing?.name ?? name.trim(), description, secret: secret() };
    change.mutate(existing ? { action: "replace", ...body } : { action: "create", ...body }, {
      onSuccess: () => {
        reset();
        onDone?.();
      },
    });
  };

  const variablesError = fields.variables ?? (duplicate ? `variable ${duplicate} is listed twice` : undefined);
  // A message for a field this form does not show (or none at all) goes beside the button.
  const shown = Object.keys(fields).some((f) => SHOWN_FIELDS.has(f) || f.startsWith("variables."));

  return (
    <form className="space-y-4" onSubmit={submit} noValidate data-testid={`${prefix}-form`}>
      {!existing && (
        <div className="grid gap-3 sm:grid-cols-[16rem_1fr]">
          <TextField
            label="Name"
            help="The name forms use for it, in the credentials list of their form.yaml"
            controlClassName="font-mono"
            {...text.bind("name")}
            placeholder="prod-ssh"
            autoComplete="off"
            spellCheck={false}
            data-testid="credential-name"
          />
          <fieldset>
            <legend className="text-xs text-zinc-600">Kind</legend>
            <div className="mt-1 flex flex-wrap gap-2" role="radiogroup">
              {KINDS.map((k) => (
                <label
                  key={k.kind}
                  className={cx(
                    "flex cursor-pointer items-center gap-2 rounded-md px-3 py-1.5 text-sm ring-1 ring-inset",
                    "has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-indigo-600",
                    kind === k.kind
                      ? "bg-indigo-50 text-indigo-800 ring-indigo-300"
                      : "bg-white text-zinc-700 ring-zinc-300 hover:bg-zinc-50",
                  )}
                  title={k.help}
                  data-testid={`credential-kind-${k.kind}`}
                >
                  <input
                    type="radio"
                    name={`${prefix}-kind`}
                    className="sr-only"
                    checked={kind === k.kind}
                    onChange={() => setKind(k.kind)}
                  />
                  {k.label}
                </label>
              ))}
            </div>
            <p className="mt-1 text-xs text-zinc-500">{KINDS.find((k) => k.kind === kind)?.help}</p>
          </fieldset>
        </div>
      )}

      {kind === "ssh" && (
        <div className="grid gap-3 sm:grid-cols-[16rem_1fr]">
          <TextField
            label="User (ansible_user)"
            {...text.bind("username")}
            autoComplete="off"
            spellCheck={false}
            data-testid="credential-username"
          />
          <Field
            label="Private key"
            error={keyError}
            help="The whole file, from -----BEGIN to -----END. Keys with a passphrase are not supported: a runner has no ssh-agent to unlock them."
            controlClassName="h-40 font-mono text-xs"
          >
            {(control) => (
              <textarea
                {...control}
                {...keyInput}
                placeholder={"-----BEGIN OPENSSH PRIVATE KEY-----\n…\n-----END OPENSSH PRIVATE KEY-----"}
                autoComplete="off"
                spellCheck={false}
                data-testid="credential-private-key"
              />
            )}
          </Field>
        </div>
      )}

      {kind === "vault" && (
        <TextField
          className="max-w-sm"
          label="Vault password"
          type="password"
          {...text.bind("password")}
          autoComplete="new-password"
          data-testid="credential-password"
        />
      )}

      {kind === "secret" && (
        <fieldset className="space-y-2">
          <legend className="text-xs text-zinc-600">Variables (names as in the playbook; values masked in the output)</legend>
          {rows.map((row, index) => {
            const rowError = fields[`variables.${row.name.trim()}`];
            return (
              <div key={row.key} className="grid gap-2 sm:grid-cols-[16rem_1fr_auto] sm:items-start">
                <input
                  className={inputClass(Boolean(rowError), "font-mono")}
                  value={row.name}
                  onChange={(e) => setRows(rows.map((r) => (r.key === row.key ? { ...r, name: e.target.value } : r)))}
                  placeholder="api_token"
                  aria-label={`Variable ${index + 1} name`}
                  autoComplete="off"
                  spellCheck={false}
                  data-testid={`credential-variable-name-${index}`}
                />
                <input
                  className={inputClass(false)}
                  type="password"
                  value={row.value}
                  onChange={(e) => setRows(rows.map((r) => (r.key === row.key ? { ...r, value: e.target.value } : r)))}
                  aria-label={`Variable ${index + 1} value`}
                  autoComplete="new-password"
                  data-testid={`credential-variable-value-${index}`}
                />
                <Button variant="ghost" onClick={() => setRows(rows.filter((r) => r.key !== row.key))} disabled={rows.length === 1}>
                  Remove
                </Button>
                {rowError && <span className="text-xs text-red-700 sm:col-span-3">{`${row.name}: ${rowError}`}</span>}
              </div>
            );
          })}
          <Button
            size="sm"
            onClick={() => {
              setRows([...rows, { key: nextKey, name: "", value: "" }]);
              setNextKey(nextKey + 1);
            }}
          >
            Add variable
          </Button>
          {variablesError && <p className="text-xs text-red-700">{variablesError}</p>}
        </fieldset>
      )}

      <TextField
        className="max-w-xl"
        label="Description (optional)"
        {...text.bind("description")}
        placeholder="What it opens, who to ask when it changes"
        data-testid="credential-description"
      />

      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" variant="primary" disabled={change.isPending} data-testid={`${prefix}-submit`}>
          {change.isPending ? "Saving…" : existing ? "Replace secret" : "Add credential"}
        </Button>
        {onDone && (
          <Button variant="ghost" onClick={onDone}>
            Cancel
          </Button>
        )}
        {change.isError && !shown && (
          <span role="alert" className="text-sm text-red-700" data-testid={`${prefix}-error`}>
            {errorMessage(change.error)}
          </span>
        )}
      </div>
    </form>
  );
}
