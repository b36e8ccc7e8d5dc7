"use client";

import { useState, type FormEvent } from "react";
import { errorMessage, fieldErrors } from "@/components/api/client";
import type { Source } from "@/components/api/types";
import { useCreateSource, useUpdateSource } from "@/components/hooks/use-sources";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";

const EMPTY = { name: "", url: "", ref: "", credential: "", formsPath: "", interval: "" };

/**
 * The minutes typed: a number when it reads as one, else the text as typed, so the API names the
 * field ("expected number") instead of JSON turning NaN into null (no timer) without a word.
 */
function minutesOf(text: string): number | string {
  const minutes = Number(text);
  return Number.isFinite(minutes) ? minutes : text;
}

function valuesOf(source: Source | undefined): typeof EMPTY {
  if (!source) return EMPTY;
  return {
    name: source.name,
    url: source.url,
    ref: source.ref ?? "",
    credential: source.credential ?? "",
    formsPath: source.formsPath,
    interval: source.syncIntervalMinutes === null ? "" : String(source.syncIntervalMinutes),
  };
}

/**
 * Registers a Git source, or with `source` changes one (its name stays; taken into account at
 * its next sync). The webhook's secret, when asked for, is shown once below the form.
 */
export function SourceForm({ source, onDone }: { source?: Source; onDone?: () => void } = {}) {
  const create = useCreateSource();
  const update = useUpdateSource(source?.name ?? "");
  const saving = source ? update : create;
  const [values, setValues] = useState(() => valuesOf(source));
  const [webhook, setWebhook] = useState(false);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const errors = saving.isError ? fieldErrors(saving.error) : {};
  const bind = (key: keyof typeof EMPTY) => ({
    value: values[key],
    error: errors[key === "interval" ? "syncIntervalMinutes" : key],
    onChange: (event: { target: { value: string } }) => setValues({ ...values, [key]: event.target.value }),
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setSecret(null);
    if (source) {
      // Emptied fields go back to their defaults: the default branch, no credential, no timer.
      const interval = values.interval.trim();
      update.mutate(
        {
          url: values.url.trim(),
          ref: values.ref.trim() || null,
          credential: values.credential.trim() || null,
          formsPath: values.formsPath.trim(),
          syncIntervalMinutes: interval ? minutesOf(interval) : null,
          ...(webhook ? { webhook: true } : {}),
        },
        {
          onSuccess: (answer) => {
            if (answer.webhookSecret) setSecret({ name: answer.source.name, secret: answer.webhookSecret });
            else onDone?.();
          },
        },
      );
      return;
    }
    create.mutate(
      {
        name: values.name.trim(),
        url: values.url.trim(),
        ...(values.ref.trim() ? { ref: values.ref.trim() } : {}),
        ...(values.credential.trim() ? { credential: values.credential.trim() } : {}),
        ...(values.formsPath.trim() ? { formsPath: values.formsPath.trim() } : {}),
        ...(values.interval.trim() ? { syncIntervalMinutes: minutesOf(values.interval.trim()) } : {}),
        webhook,
      },
      {
        onSuccess: (answer) => {
          if (answer.webhookSecret) setSecret({ name: answer.source.name, secret: answer.webhookSecret });
          setValues(EMPTY);
          setWebhook(false);
        },
      },
    );
  };

  return (
    <form onSubmit={onSubmit} className="space-y-3" data-testid={source ? `source-edit-${source.name}` : "source-form"}>
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField label="Name" requiredMark placeholder="ops-playbooks" {...bind("name")} disabled={source !== undefined} />
        <TextField
          label="Repository URL"
          requiredMark
          placeholder="https://git.example.com/ops/playbooks.git"
          help="https://, ssh://, file:// (a repository on the app's machine), user@host:path or an absolute path. Never a token in the URL: store it as a credential."
          {...bind("url")}
        />
        <TextField label="Branch or tag" placeholder="the default branch" {...bind("ref")} />
        <TextField
          label="Credential"
          placeholder="none (public repository)"
          help="A stored ssh key (deploy key) or a secret credential holding an https token."
          {...bind("credential")}
        />
        <TextField
          label="Forms folder"
          placeholder="the repository's root"
          help="One folder per form, each with its form.yaml."
          {...bind("formsPath")}
        />
        <TextField label="Sync every (minutes)" inputMode="numeric" placeholder="on demand and by webhook only" {...bind("interval")} />
      </div>
      <label className="flex items-center gap-2 text-sm text-zinc-700">
        <input type="checkbox" checked={webhook} onChange={(event) => setWebhook(event.target.checked)} />
        {source?.webhook
          ? "Generate a new webhook secret (shown once; the current one stops working)"
          : "Generate a webhook secret (shown once) for push webhooks"}
      </label>
      {saving.isError && Object.keys(errors).length === 0 && (
        <p className="text-sm text-red-700" role="alert">
          {errorMessage(saving.error)}
        </p>
      )}
      <div className="flex gap-2">
        <Button type="submit" variant="primary" disabled={saving.isPending} data-testid="source-save">
          {source ? (update.isPending ? "Saving…" : "Save") : create.isPending ? "Adding…" : "Add source"}
        </Button>
        {source && (
          <Button type="button" variant="ghost" onClick={onDone}>
            {secret ? "Close" : "Cancel"}
          </Button>
        )}
      </div>
      {secret && (
        <div className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" data-testid="webhook-secret">
          Webhook of <strong>{secret.name}</strong>: POST to <code className="font-mono">/api/sources/{secret.name}/webhook</code> with this
          secret (GitHub, Gitea: HMAC signature; GitLab: token). It is shown only now:
          <code className="mt-1 block font-mono break-all select-all">{secret.secret}</code>
        </div>
      )}
    </form>
  );
}
