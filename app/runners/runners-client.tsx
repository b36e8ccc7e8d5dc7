"use client";

import { useState } from "react";
import { RUNNERS_REFRESH_MS, useRunners } from "@/components/hooks/use-runners";
import { JoinHelp } from "@/components/runners/join-help";
import { JoinRequests } from "@/components/runners/join-requests";
import { RotatedToken } from "@/components/runners/rotated-token";
import { RunnersTable } from "@/components/runners/runners-table";
import { PageHeader } from "@/components/ui/page-header";
import { Panel } from "@/components/ui/panel";
import { ErrorState, LoadingState, Spinner } from "@/components/ui/states";

/** Approved first, then the ones that can no longer run anything. */
const ORDER = { approved: 0, pending: 1, revoked: 2, rejected: 3 } as const;

export function RunnersClient() {
  const runners = useRunners();
  // Held only in this tab's memory: the server has already forgotten it.
  const [rotated, setRotated] = useState<{ runner: string; token: string } | null>(null);

  const all = runners.data ?? [];
  const pending = all.filter((r) => r.status === "pending");
  const decided = all
    .filter((r) => r.status !== "pending")
    .sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.name.localeCompare(b.name));

  return (
    <>
      <PageHeader
        title="Runners"
        description={`Runtime environments that run the playbooks, refreshed every ${RUNNERS_REFRESH_MS / 1000} seconds.`}
        actions={runners.isFetching && !runners.isPending && <Spinner className="size-3.5" />}
      />
      {runners.isPending ? (
        <LoadingState label="Loading runners…" />
      ) : runners.isError ? (
        <ErrorState error={runners.error} onRetry={() => void runners.refetch()} />
      ) : (
        <div className="space-y-6">
          {rotated && <RotatedToken runner={rotated.runner} token={rotated.token} onDismiss={() => setRotated(null)} />}
          {pending.length > 0 && <JoinRequests runners={pending} />}
          {decided.length > 0 ? (
            <RunnersTable runners={decided} onRotated={(runner, token) => setRotated({ runner: runner.name, token })} />
          ) : (
            <div className="rounded-lg border border-dashed border-zinc-300 bg-white px-6 py-8" data-testid="runners-empty">
              <p className="mb-3 text-sm font-medium text-zinc-900">No runner has joined yet</p>
              <JoinHelp />
            </div>
          )}
          {decided.length > 0 && (
            <Panel title="Adding a runner">
              <JoinHelp />
            </Panel>
          )}
        </div>
      )}
    </>
  );
}
