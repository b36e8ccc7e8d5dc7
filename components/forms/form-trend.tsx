"use client";

import Link from "next/link";
import { useState } from "react";
import type { FormTrend, RunDuration } from "@/components/api/types";
import { useFormTrend } from "@/components/hooks/use-form-trend";
import { RECAP_STATUS_STYLE } from "@/components/recap/colours";
import { RecentJobs } from "@/components/jobs/recent-jobs";
import { Button, ButtonLink } from "@/components/ui/button";
import { RecapList } from "@/components/recap/recap-list";
import { cx } from "@/components/ui/cx";
import { durationBarHeights, formatDateTime, formatDurationSeconds, formatElapsedFloor } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";

const LAST_RUNS = 10;
/** A report takes 2 to 20 runs (GET /api/forms/NAME/report). */
const REPORT_MIN = 2;
const REPORT_MAX = 20;

/**
 * Picking runs for the report across runs: a box beside each finished run, then "Report" opens
 * /forms/NAME/report with them, oldest first.
 */
function ReportPicker({ form, picked, onCancel }: { form: string; picked: ReadonlySet<number>; onCancel: () => void }) {
  const ids = [...picked].sort((a, b) => a - b);
  const ready = ids.length >= REPORT_MIN && ids.length <= REPORT_MAX;
  return (
    <div
      className="mb-3 flex flex-wrap items-center gap-3 rounded-md bg-indigo-50 px-3 py-2 text-sm text-indigo-900"
      data-testid="report-picker"
    >
      <span>
        {ids.length === 0
          ? `Pick ${REPORT_MIN} to ${REPORT_MAX} finished runs to put side by side.`
          : `${ids.length} picked${ids.length > REPORT_MAX ? `: at most ${REPORT_MAX}` : ids.length < REPORT_MIN ? `: pick at least ${REPORT_MIN}` : ""}`}
      </span>
      <span className="ml-auto flex items-center gap-2">
        <Button size="sm" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        {ready ? (
          <ButtonLink size="sm" variant="primary" href={`/forms/${encodeURIComponent(form)}/report?jobs=${ids.join(",")}`}>
            Report
          </ButtonLink>
        ) : (
          <Button size="sm" variant="primary" disabled>
            Report
          </Button>
        )}
      </span>
    </div>
  );
}

/**
 * The figure the bars show: the job's launch-to-end time (measured to the millisecond) when
 * the runs have it, else the recap's elapsed_sec (whole seconds, rounded down: runs of 3.3 s
 * and 3.7 s both read 3, so it is only the fallback).
 */
function barFigure(durations: RunDuration[]) {
  if (durations.some((d) => d.job_sec != null)) {
    return {
      title: "Duration per run (launch to end)",
      hint: "Each job's wall time, from the runner starting it to its end; the tooltip adds the playbook elapsed from its recap.",
      value: (d: RunDuration) => d.job_sec ?? null,
      format: formatDurationSeconds,
    };
  }
  return {
    title: "Playbook elapsed per run",
    hint: "Each run's recap elapsed_sec: playbook elapsed from the log, whole seconds rounded down.",
    value: (d: RunDuration) => d.elapsed_sec,
    format: formatElapsedFloor,
  };
}

function DurationBars({ durations }: { durations: RunDuration[] }) {
  const figure = barFigure(durations);
  const values = durations.map(figure.value);
  const longest = Math.max(...values.map((v) => v ?? 0), 0);
  // Scaled to the runs' range when they are close; the values are printed under the bars.
  const heights = durationBarHeights(values);
  const latest = values[values.length - 1] ?? null;
  return (
    <div className="min-w-0" data-testid="trend-durations">
      <h3 className="mb-1.5 flex items-baseline justify-between gap-3 text-xs font-semibold text-zinc-700">
        <span title={figure.hint}>{figure.title}</span>
        {latest !== null && (
          <span className="font-normal text-zinc-500">
            latest <span className="font-mono text-zinc-700 tabular-nums">{figure.format(latest)}</span>
            {longest > 0 && (
              <>
                {" "}
                · longest <span className="font-mono text-zinc-700 tabular-nums">{figure.format(longest)}</span>
              </>
            )}
          </span>
        )}
      </h3>
      <ol className="flex h-24 items-end gap-1.5 border-b border-zinc-200" aria-label="Duration of each run, oldest first">
        {durations.map((run, index) => {
          const label = [
            `#${run.id}`,
            RECAP_STATUS_STYLE[run.status].phrase,
            run.job_sec === null ? null : `launch to end ${formatDurationSeconds(run.job_sec)}`,
            run.elapsed_sec === null ? "no playbook timing" : `playbook elapsed ${formatElapsedFloor(run.elapsed_sec)}`,
            run.finished_at ? formatDateTime(run.finished_at) : null,
          ]
            .filter((part) => part !== null)
            .join(" · ");
          const height = heights[index] ?? null;
          return (
            <li key={run.id} className="flex h-full max-w-12 min-w-0 flex-1" data-run={run.id} data-status={run.status}>
              <Link href={`/jobs/${run.id}`} className="group flex h-full w-full items-end" title={label} aria-label={label}>
                {height === null ? (
                  <span className="h-1.5 w-full rounded-t border border-b-0 border-dashed border-zinc-300" />
                ) : (
                  <span
                    className={cx("w-full rounded-t transition-colors", RECAP_STATUS_STYLE[run.status].bar)}
                    style={{ height: `${height}%` }}
                  />
                )}
              </Link>
            </li>
          );
        })}
      </ol>
      <ol className="mt-1 flex gap-1.5" aria-hidden="true">
        {durations.map((run, index) => (
          <li key={run.id} className="max-w-12 min-w-0 flex-1 truncate text-center font-mono text-[10px] text-zinc-400">
            <span className="block truncate text-zinc-600 tabular-nums" data-testid="trend-duration-value">
              {values[index] == null ? "—" : figure.format(values[index])}
            </span>
            #{run.id}
          </li>
        ))}
      </ol>
    </div>
  );
}

function HostFailureRates({ hosts }: { hosts: FormTrend["hosts"] }) {
  return (
    <div className="min-w-0" data-testid="trend-hosts">
      <h3 className="mb-1.5 text-xs font-semibold text-zinc-700">Failure rate per host</h3>
      {hosts.length === 0 ? (
        <p className="text-xs text-zinc-400">No completed run yet.</p>
      ) : (
        <ul className="space-y-1.5">
          {hosts.map((h) => (
            <li key={h.host} className="text-xs" data-host={h.host} data-failure-rate={h.failure_rate}>
              <div className="flex items-baseline justify-between gap-3">
                <span className="truncate font-mono text-zinc-800">{h.host}</span>
                <span className={cx("shrink-0 tabular-nums", h.failed_runs > 0 ? "font-semibold text-red-600" : "text-zinc-500")}>
                  {Math.round(h.failure_rate * 100)}%{" "}
                  <span className="font-normal text-zinc-400">
                    ({h.failed_runs}/{h.runs} runs)
                  </span>
                </span>
              </div>
              <div className="mt-0.5 h-1 rounded-full bg-zinc-100">
                {h.failed_runs > 0 && (
                  <div className="h-1 rounded-full bg-red-500" style={{ width: `${Math.max(2, h.failure_rate * 100)}%` }} />
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * A form's runs in one panel: the latest ones (finished or not, with links), then, over the
 * last finished ones, how long they took, what never settles and which hosts fail.
 */
export function FormTrendPanel({ form }: { form: string }) {
  const trend = useFormTrend(form, LAST_RUNS);
  // Picking runs for a report: null when not picking.
  const [picked, setPicked] = useState<ReadonlySet<number> | null>(null);
  const toggle = (id: number) =>
    setPicked((before) => {
      const next = new Set(before);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <Panel
      title="Runs"
      data-testid="form-trend"
      actions={
        <span className="flex items-center gap-3">
          {picked === null && (
            <button type="button" className="text-xs text-indigo-600 hover:underline" onClick={() => setPicked(new Set())}>
              Report…
            </button>
          )}
          <Link href={`/jobs?form=${encodeURIComponent(form)}`} className="text-xs text-indigo-600 hover:underline">
            All runs
          </Link>
        </span>
      }
    >
      {picked !== null && <ReportPicker form={form} picked={picked} onCancel={() => setPicked(null)} />}
      <RecentJobs form={form} pick={picked === null ? undefined : { picked, toggle }} />
      {trend.isPending ? null : trend.isError ? (
        <p className="mt-4 text-sm text-red-700">Could not load the trend of the last runs.</p>
      ) : trend.data.durations.length === 0 ? null : (
        <div className="mt-4 space-y-5 border-t border-zinc-100 pt-4">
          <p className="text-xs text-zinc-500">Last {trend.data.durations.length} finished</p>
          <DurationBars durations={trend.data.durations} />
          <div className="grid grid-cols-1 gap-5 border-t border-zinc-100 pt-4 md:grid-cols-2">
            {/* One complete run says nothing about idempotence (a first run legitimately changes
                things): no "Never idempotent" heading at all until two runs can be compared. */}
            {trend.data.completed_runs < 2 ? null : (
              <RecapList
                title="Never idempotent"
                hint={`Changed in every one of the ${trend.data.completed_runs} completed runs.`}
                items={trend.data.never_idempotent}
                empty={`No task changed in all ${trend.data.completed_runs} completed runs.`}
                tone="changed"
                testId="trend-never-idempotent"
              />
            )}
            <HostFailureRates hosts={trend.data.hosts} />
          </div>
        </div>
      )}
    </Panel>
  );
}
