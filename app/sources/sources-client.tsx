"use client";

import { useSources } from "@/components/hooks/use-sources";
import { SourceForm } from "@/components/sources/source-form";
import { SourcesTable } from "@/components/sources/sources-table";
import { PageHeader } from "@/components/ui/page-header";
import { Panel } from "@/components/ui/panel";
import { ErrorState, LoadingState } from "@/components/ui/states";

export function SourcesClient() {
  const sources = useSources();
  return (
    <>
      <PageHeader
        title="Sources"
        description={
          <>
            Git repositories of forms: one folder per form, imported at each sync (Sync, a push webhook, or every N minutes). Jobs record
            the commit they ran.
          </>
        }
      />
      <div className="space-y-6">
        <Panel title="Add a source">
          <SourceForm />
        </Panel>
        {sources.isPending ? (
          <LoadingState label="Loading sources…" />
        ) : sources.isError ? (
          <ErrorState error={sources.error} onRetry={() => void sources.refetch()} />
        ) : sources.data.length === 0 ? (
          <div
            className="rounded-lg border border-dashed border-zinc-300 bg-white px-6 py-8 text-sm text-zinc-600"
            data-testid="sources-empty"
          >
            No source yet. Add a Git repository above, then Sync it.
          </div>
        ) : (
          <SourcesTable sources={sources.data} />
        )}
      </div>
    </>
  );
}
