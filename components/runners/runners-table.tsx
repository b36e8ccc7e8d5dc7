"use client";

import type { Runner } from "@/components/api/types";
import { useNow } from "@/components/hooks/use-now";
import { cx } from "@/components/ui/cx";
import { ageMs, formatAgo, formatDateTime } from "@/components/ui/format";
import { RunnerActions } from "./runner-actions";
import { RunnerInstances } from "./runner-instances";
import { RunnerStatusBadge } from "./runner-status-badge";

/**
 * A heartbeat older than this is shown in red. The app's RTE_HEARTBEAT_TIMEOUT_SECONDS
 * defaults to the same two minutes: past it, the runner's running jobs end "abandoned".
 */
const HEARTBEAT_STALE_MS = 2 * 60_000;

const TH = "px-3 py-2 text-left text-[11px] font-semibold tracking-wide text-zinc-500 uppercase";
const TD = "px-3 py-2.5 align-top";
const muted = <span className="text-zinc-400">—</span>;

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

export function RunnersTable({ runners, onRotated }: { runners: Runner[]; onRotated: (runner: Runner, token: string) => void }) {
  const now = useNow(true);
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white shadow-xs">
      <table className="min-w-full divide-y divide-zinc-200 text-sm" data-testid="runners-table">
        <thead className="bg-zinc-50">
          <tr>
            <th scope="col" className={TH}>
              Runner
            </th>
            <th scope="col" className={TH}>
              Status
            </th>
            <th scope="col" className={TH}>
              Version
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Jobs
            </th>
            <th scope="col" className={TH}>
              Heartbeat
            </th>
            <th scope="col" className={TH}>
              Instances
            </th>
            <th scope="col" className={`${TH} text-right`}>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {runners.map((runner) => {
            const inactive = runner.status === "rejected" || runner.status === "revoked";
            return (
              <tr
                key={runner.id}
                className={cx(inactive && "bg-zinc-50/60")}
                data-runner={runner.name}
                data-status={runner.status}
                data-connected={runner.instances.some((i) => i.connected)}
              >
                <td className={TD}>
                  <div className="flex items-center gap-2">
                    <span className={cx("font-mono text-[13px] font-semibold", inactive ? "text-zinc-500" : "text-zinc-900")}>
                      {runner.name}
                    </span>
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
                    {runner.mode}
                    {runner.address && <span className="font-mono"> · {runner.address}</span>}
                  </div>
                </td>
                <td className={TD}>
                  <RunnerStatusBadge status={runner.status} />
                </td>
                <td className={`${TD} font-mono text-xs text-zinc-600`}>{runner.version ?? muted}</td>
                <td className={`${TD} text-right whitespace-nowrap tabular-nums`}>
                  <span className={cx(runner.runningJobs > 0 ? "font-semibold text-sky-700" : "text-zinc-700")} title="running">
                    {runner.runningJobs}
                  </span>
                  <span className="text-zinc-400">/{runner.capacity}</span>
                  <div className={cx("text-xs", runner.queuedJobs > 0 ? "text-amber-700" : "text-zinc-400")}>
                    {runner.queuedJobs} queued
                  </div>
                </td>
                <td className={`${TD} whitespace-nowrap`}>
                  <Heartbeat runner={runner} now={now} />
                </td>
                <td className={TD}>
                  <RunnerInstances instances={runner.instances} now={now} />
                </td>
                <td className={`${TD} text-right`}>
                  <RunnerActions runner={runner} onRotated={(token) => onRotated(runner, token)} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
