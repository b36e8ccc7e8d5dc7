"use client";

import { useState } from "react";
import { errorMessage } from "@/components/api/client";
import type { Source } from "@/components/api/types";
import { useDeleteSource, useSyncSource } from "@/components/hooks/use-sources";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { formatDateTime } from "@/components/ui/format";
import { Spinner } from "@/components/ui/states";
import { SourceForm } from "./source-form";

function Status({ source, syncing }: { source: Source; syncing: boolean }) {
  if (syncing || source.syncStatus === "running") {
    return (
      <span className="inline-flex items-center gap-1.5 text-indigo-700">
        <Spinner className="size-3.5" /> syncing…
      </span>
    );
  }
  if (source.syncStatus === "failed") return <span className="font-medium text-red-700">failed</span>;
  if (source.syncStatus === "ok") return <span className="text-emerald-700">ok</span>;
  return <span className="text-zinc-500">never synced</span>;
}

/** The sources with their status, last commit and sync, refused forms, and Sync, Edit and Delete. */
export function SourcesTable({ sources }: { sources: Source[] }) {
  const sync = useSyncSource();
  const remove = useDeleteSource();
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <ul className="space-y-3" data-testid="sources">
      {sources.map((source) => {
        const syncing = sync.isPending && sync.variables === source.name;
        const lastResult = !sync.isPending && sync.variables === source.name ? sync : null;
        return (
          <li key={source.name} className="rounded-lg border border-zinc-200 bg-white p-4 shadow-xs" data-testid={`source-${source.name}`}>
            <div className="flex flex-wrap items-start justify-between gap-3">
              <div className="min-w-0 space-y-1">
                <h3 className="font-semibold text-zinc-900">{source.name}</h3>
                <p className="font-mono text-xs break-all text-zinc-600">
                  {source.url}
                  {source.ref ? ` @ ${source.ref}` : ""}
                  {source.formsPath ? ` : ${source.formsPath}/` : ""}
                </p>
                <p className="text-sm text-zinc-700">
                  <Status source={source} syncing={syncing} />
                  {" · "}
                  commit <code className="font-mono">{source.commit ? source.commit.slice(0, 12) : "none yet"}</code>
                  {" · "}
                  last sync {source.syncedAt ? formatDateTime(source.syncedAt) : "never"}
                  {source.syncIntervalMinutes ? ` · every ${source.syncIntervalMinutes} min` : ""}
                  {source.webhook ? " · webhook" : ""}
                  {source.credential ? ` · credential ${source.credential}` : ""}
                </p>
              </div>
              <div className="flex gap-2">
                <Button
                  variant="primary"
                  size="sm"
                  disabled={syncing || source.syncStatus === "running"}
                  onClick={() => sync.mutate(source.name)}
                  data-testid={`sync-${source.name}`}
                >
                  {syncing ? "Syncing…" : "Sync"}
                </Button>
                <Button
                  variant="secondary"
                  size="sm"
                  onClick={() => setEditing(editing === source.name ? null : source.name)}
                  data-testid={`edit-${source.name}`}
                >
                  Edit
                </Button>
                <ConfirmButton
                  question={`Delete source ${source.name}? Its forms no job ran are removed; forms with jobs stay at their last commit.`}
                  confirmLabel="Delete"
                  pendingLabel="Deleting…"
                  pending={remove.isPending && remove.variables === source.name}
                  onConfirm={() => remove.mutate(source.name)}
                  variant="danger"
                >
                  Delete
                </ConfirmButton>
              </div>
            </div>
            {editing === source.name && (
              <div className="mt-3 border-t border-zinc-100 pt-3">
                <SourceForm source={source} onDone={() => setEditing(null)} />
              </div>
            )}
            {source.syncStatus === "failed" && source.syncError && (
              <p className="mt-2 rounded bg-red-50 px-2 py-1 text-sm text-red-800" role="alert">
                The last sync failed (the forms stay at commit {source.commit?.slice(0, 12) ?? "none"}): {source.syncError}
              </p>
            )}
            {lastResult?.isError && (
              <p className="mt-2 text-sm text-red-700" role="alert">
                {errorMessage(lastResult.error)}
              </p>
            )}
            {lastResult?.data?.status === "ok" && (
              <p className="mt-2 text-sm text-zinc-700">
                Synced {lastResult.data.commit?.slice(0, 12)}: {lastResult.data.imported.length} form(s) imported
                {lastResult.data.imported.length > 0 ? ` (${lastResult.data.imported.join(", ")})` : ""}.
              </p>
            )}
            {source.forms.length > 0 && (
              <p className="mt-2 text-sm text-zinc-600">
                Forms:{" "}
                {source.forms.map((form, i) => (
                  <span key={form.name}>
                    {i > 0 && ", "}
                    <a className="text-indigo-700 hover:underline" href={`/forms/${encodeURIComponent(form.name)}`}>
                      {form.name}
                    </a>{" "}
                    <code className="font-mono text-xs text-zinc-500">{form.commit?.slice(0, 7)}</code>
                  </span>
                ))}
              </p>
            )}
            {source.syncErrors.length > 0 && (
              <div className="mt-2 text-sm" data-testid={`refused-${source.name}`}>
                <p className="font-medium text-amber-800">Refused at the last sync (the previous version stays):</p>
                <ul className="list-disc pl-5 font-mono text-xs text-amber-900">
                  {source.syncErrors.map((error) => (
                    <li key={error}>{error}</li>
                  ))}
                </ul>
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}
