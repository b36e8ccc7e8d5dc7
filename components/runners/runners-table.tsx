"use client";

import type { Runner } from "@/components/api/types";
import { useNow } from "@/components/hooks/use-now";
import { cx } from "@/components/ui/cx";
import { DataTable, type Column } from "@/components/ui/data-table";
import { ageMs, formatAgo, formatDateTime } from "@/components/ui/format";
import { RunnerActions } from "./runner-actions";
import { RunnerEnvironments } from "./runner-environments";
import { RunnerInstances } from "./runner-instances";
import { RunnerStatusBadge } from "./runner-status-badge";

/**
 * A heartbeat older than this is shown in red. The app's RTE_HEARTBEAT_TIMEOUT_SECONDS
 * defaults to the same two minutes: past it, the runner's running jobs end "abandoned".
 */
const HEARTBEAT_STALE_MS = 2 * 60_000;

const muted = <span className="text-zinc-400">—</span>;

const isInactive = (runner: Runner) => runner.status === "rejected" || runner.status === "revoked";

function Heartbeat({ runner, now }: { runner: Runner; now: number }) {
  const age = ageMs(runner.lastHeartbeatAt, now);
  // Only an approved runner is expected to beat; a revoked one going quiet is the point.
  const stale = runner.status === "approved" && (age === null || age > HEARTBEAT_STALE_MS);
  return (
    <span
      className={cx("tabular-nums", stale ? "font-semibold text-red-600" : "text-zinc-600")}
      title={runner.lastHeartbeatAt ? formatDateTime(runner.lastHeartbeatAt) : "no heartbeat received yet"}
      data-testid="runner-heartbeat"
      data-stale={stale}
    >
      {formatAgo(runner.lastHeartbeatAt, now)}
    </span>
  );
}

/** What a runner's mode means (docs/rte.md, "Modes"): which side opens the connection. */
const MODE_HELP: Record<Runner["mode"], string> = {
  outbound:
    "Outbound: the runner connects to this app (APP_URL) and keeps that connection open. The usual mode: nothing listens on the runner's machine.",
  inbound:
    "Inbound: the runner listens on its own address and this app connects to it. For runners the app can reach but that cannot reach the app.",
};

function RunnerName({ runner }: { runner: Runner }) {
  const inactive = isInactive(runner);
  return (
    <>
      <div className="flex items-center gap-2">
        <span className={cx("font-mono text-[13px] font-semibold", inactive ? "text-zinc-500" : "text-zinc-900")}>{runner.name}</span>
        {runner.isDefault && (
          <span
            className="rounded bg-indigo-50 px-1.5 py-0.5 text-[10px] font-semibold tracking-wide text-indigo-700 uppercase ring-1 ring-indigo-200 ring-inset"
            data-testid="runner-default"
            title="Jobs of forms that name no runner go here"
          >
            default
          </span>
        )}
      </div>
      <div className="mt-0.5 text-xs text-zinc-500">
        <span
          className="cursor-help underline decoration-zinc-300 decoration-dotted"
          title={MODE_HELP[runner.mode]}
          data-testid="runner-mode"
        >
          {runner.mode}
        </span>
        {runner.address && <span className="font-mono"> · {runner.address}</span>}
      </div>
      {runner.mode === "inbound" && <InboundLink runner={runner} />}
    </>
  );
}

/** Inbound: how the app reaches the runner (pinned certificate or no TLS) and why it cannot, if it cannot. */
function InboundLink({ runner }: { runner: Runner }) {
  const plain = runner.address?.startsWith("http:") ?? false;
  return (
    <div className="mt-1 space-y-0.5 text-xs" data-testid="runner-inbound">
      {plain ? (
        <div className={runner.inboundNoTls ? "font-semibold text-amber-700" : "text-zinc-600"} data-testid="runner-tls">
          {runner.inboundNoTls
            ? "no TLS: plain http allowed by an admin"
            : "plain http address: not connected until an admin allows it without TLS"}
        </div>
      ) : (
        <div className="text-zinc-600" data-testid="runner-tls">
          pinned certificate SHA-256{" "}
          <span className="font-mono break-all" data-testid="runner-pinned">
            {runner.certFingerprint ?? "none"}
          </span>
        </div>
      )}
      {runner.linkHolder && (
        <div className="text-zinc-500" data-testid="runner-link-holder" title="The app node that holds the link (PLAYFORM_NODE_ID)">
          linked from app node <span className="font-mono">{runner.linkHolder}</span>
        </div>
      )}
      {runner.linkError && (
        <div
          role="alert"
          className="text-red-700"
          data-testid="runner-link-error"
          title={runner.linkErrorAt ? formatDateTime(runner.linkErrorAt) : undefined}
        >
          {runner.linkError}
        </div>
      )}
      {runner.presentedFingerprint && runner.certFingerprint && runner.presentedFingerprint !== runner.certFingerprint && (
        <div className="text-red-700">
          presents SHA-256 <span className="font-mono break-all">{runner.presentedFingerprint}</span>
        </div>
      )}
    </div>
  );
}

function RunnerJobs({ runner }: { runner: Runner }) {
  return (
    <>
      <span className={cx(runner.runningJobs > 0 ? "font-semibold text-sky-700" : "text-zinc-700")} title="running">
        {runner.runningJobs}
      </span>
      <span className="text-zinc-400">/{runner.capacity}</span>
      <div className={cx("text-xs", runner.queuedJobs > 0 ? "text-amber-700" : "text-zinc-400")}>{runner.queuedJobs} queued</div>
    </>
  );
}

export function RunnersTable({ runners, onRotated }: { runners: Runner[]; onRotated: (runner: Runner, token: string) => void }) {
  const now = useNow(true);
  const columns: Column<Runner>[] = [
    { key: "name", header: "Runner", cell: (runner) => <RunnerName runner={runner} /> },
    { key: "status", header: "Status", cell: (runner) => <RunnerStatusBadge status={runner.status} /> },
    { key: "version", header: "Version", className: "font-mono text-xs text-zinc-600", cell: (runner) => runner.version ?? muted },
    {
      key: "jobs",
      header: "Jobs",
      align: "right",
      className: "whitespace-nowrap tabular-nums",
      cell: (runner) => <RunnerJobs runner={runner} />,
    },
    { key: "heartbeat", header: "Heartbeat", className: "whitespace-nowrap", cell: (runner) => <Heartbeat runner={runner} now={now} /> },
    { key: "instances", header: "Instances", cell: (runner) => <RunnerInstances instances={runner.instances} now={now} /> },
    { key: "environments", header: "Environments", cell: (runner) => <RunnerEnvironments environments={runner.environments} /> },
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      align: "right",
      cell: (runner) => <RunnerActions runner={runner} onRotated={(token) => onRotated(runner, token)} />,
    },
  ];
  return (
    <DataTable
      testId="runners-table"
      rows={runners}
      columns={columns}
      cellClassName="px-3 py-2.5 align-top"
      row={(runner) => ({
        key: runner.id,
        className: cx(isInactive(runner) && "bg-zinc-50/60"),
        "data-runner": runner.name,
        "data-status": runner.status,
        "data-connected": runner.instances.some((i) => i.connected),
      })}
    />
  );
}
