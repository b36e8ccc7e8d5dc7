"use client";

import type { ReactNode } from "react";
import type { Runner } from "@/components/api/types";
import { useNow } from "@/components/hooks/use-now";
import { Fact } from "@/components/ui/fact";
import { formatAgo, formatDateTime } from "@/components/ui/format";
import { RunnerActions } from "./runner-actions";

/** What the runner said about itself. */
function Said({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Fact label={label} valueClassName="font-mono text-xs text-zinc-800">
      {children}
    </Fact>
  );
}

/**
 * Runners that asked to join and wait for a decision. Everything shown is what the runner
 * said about itself, so the fingerprint is there to compare with the machine's own.
 */
export function JoinRequests({ runners }: { runners: Runner[] }) {
  const now = useNow(true);
  return (
    <section
      className="rounded-lg border border-violet-200 bg-violet-50/50 shadow-xs"
      aria-labelledby="join-requests-title"
      data-testid="join-requests"
    >
      <header className="flex items-center gap-2 border-b border-violet-200 px-4 py-2.5">
        <h2 id="join-requests-title" className="text-xs font-semibold tracking-wide text-violet-800 uppercase">
          Join requests
        </h2>
        <span className="rounded-full bg-violet-100 px-1.5 text-[11px] font-semibold text-violet-800 tabular-nums">{runners.length}</span>
        <span className="ml-auto text-xs text-violet-800">Approve only runners you started yourself.</span>
      </header>
      <ul className="divide-y divide-violet-100">
        {runners.map((runner) => (
          <li
            key={runner.id}
            className="flex flex-wrap items-start gap-4 bg-white/70 px-4 py-3"
            data-runner={runner.name}
            data-status="pending"
          >
            <div className="min-w-48">
              <p className="font-mono text-sm font-semibold text-zinc-900">{runner.name}</p>
              <p className="mt-0.5 text-xs text-zinc-500" title={formatDateTime(runner.createdAt)}>
                asked {formatAgo(runner.createdAt, now)}
              </p>
            </div>
            <dl className="grid min-w-0 flex-1 grid-cols-2 gap-x-6 gap-y-2 sm:grid-cols-4">
              {/* Where the request came from is what the app saw; the host name is what the RTE says. */}
              <Said label="From address">
                <span data-testid="join-address">{runner.joinAddress ?? "—"}</span>
              </Said>
              <Said label="Host name (as the runner reports it)">
                <span data-testid="join-host-name">{runner.hostName ?? "—"}</span>
              </Said>
              <Said label="Version">{runner.version ?? "—"}</Said>
              <Said label="Capacity">{runner.capacity} jobs</Said>
              <Said label="Mode">
                {runner.mode}
                {runner.address ? ` · ${runner.address}` : ""}
              </Said>
              <Said label="Cert SHA-256 (pinned on approval: compare with the runner's log)">
                <span title={runner.certFingerprint ?? undefined}>{runner.certFingerprint ?? "—"}</span>
              </Said>
            </dl>
            <div className="ml-auto">
              <RunnerActions runner={runner} onRotated={() => undefined} />
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
