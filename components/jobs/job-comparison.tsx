"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import {
  HOST_COUNTERS,
  type HostComparison,
  type HostCounter,
  type JobComparison,
  type OptionDifference,
  type RunOptionsView,
} from "@/components/api/types";
import { useJobComparedWithPrevious } from "@/components/hooks/use-job-comparison";
import { RecapList } from "@/components/recap/recap-list";
import { cx } from "@/components/ui/cx";
import {
  formatDateTime,
  formatDurationDelta,
  formatDurationSeconds,
  formatElapsedFloor,
  formatElapsedFloorDelta,
  formatWhen,
} from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";
import { Spinner } from "@/components/ui/states";
import { JobStatusBadge } from "./job-status-badge";

const TIMING_DELTAS_SHOWN = 5;

/**
 * Whether more of a counter is good news: fewer failures is an improvement, more changes on
 * a second run is not. Counters with no clear direction (ok, skipped) stay neutral.
 */
const COUNTER_DIRECTION: Record<HostCounter, "bad" | "neutral"> = {
  ok: "neutral",
  changed: "bad",
  unreachable: "bad",
  failed: "bad",
  skipped: "neutral",
  rescued: "bad",
  ignored: "bad",
};

function signed(n: number): string {
  return n > 0 ? `+${n}` : `−${Math.abs(n)}`;
}

function SubHeading({ children }: { children: ReactNode }) {
  return <h3 className="mb-1.5 text-xs font-semibold text-zinc-700">{children}</h3>;
}

/** Either run did not reach its PLAY RECAP (killed, aborted): no verdict on idempotence at all. */
function CannotJudge({ incomplete }: { incomplete: readonly ("first" | "second")[] }) {
  const which =
    incomplete.length === 2
      ? "Neither run reached"
      : incomplete[0] === "first"
        ? "The previous run did not reach"
        : "This run did not reach";
  return (
    <div
      className="rounded-md border border-zinc-300 bg-zinc-50 px-4 py-3 text-sm text-zinc-700"
      data-testid="changed-again"
      data-judgeable="false"
    >
      <span className="font-semibold">Cannot judge idempotence.</span> {which} its PLAY RECAP (stopped before the end: killed, aborted,
      timed out), so not every task ran: what did not change says nothing about idempotence.
    </div>
  );
}

/** The tasks that changed in both runs: the headline, since they are the ones that are not idempotent. */
function ChangedAgain({ tasks }: { tasks: string[] }) {
  if (tasks.length === 0) {
    return (
      <div
        className="rounded-md border border-green-200 bg-green-50 px-4 py-3 text-sm text-green-800"
        data-testid="changed-again"
        data-count={0}
      >
        <span className="font-semibold">Nothing changed again.</span> No task changed in both runs: as far as these two runs tell, the
        playbook is idempotent.
      </div>
    );
  }
  return (
    <div className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3" data-testid="changed-again" data-count={tasks.length}>
      <p className="flex flex-wrap items-baseline gap-x-2 text-sm text-amber-900">
        <span className="font-semibold">
          Changed again: {tasks.length} {tasks.length === 1 ? "task" : "tasks"}
        </span>
        <span className="text-amber-800">
          {tasks.length === 1 ? "It changed" : "They changed"} in the previous run and again in this one: not idempotent.
        </span>
      </p>
      <ul className="mt-2 space-y-1">
        {tasks.map((task, index) => (
          <li key={`${index}-${task}`} className="flex items-start gap-2 text-sm font-medium text-amber-950">
            <span aria-hidden="true" className="mt-2 size-1.5 shrink-0 rounded-full bg-amber-500" />
            <span className="break-words">{task}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function HostDeltas({ hosts, incomplete }: { hosts: HostComparison[]; incomplete: readonly ("first" | "second")[] }) {
  const moved = hosts.filter((h) => h.a === null || h.b === null || HOST_COUNTERS.some((c) => h.delta[c] !== 0));
  const soFar =
    incomplete.length === 2 ? "both runs" : incomplete[0] === "first" ? "the previous run" : incomplete[0] === "second" ? "this run" : null;
  return (
    <div className="min-w-0" data-testid="comparison-hosts">
      <SubHeading>Per-host counts</SubHeading>
      {soFar && (
        <p className="mb-1 text-xs text-zinc-500" data-testid="comparison-hosts-partial">
          For {soFar}: the results printed before it stopped, not a PLAY RECAP.
        </p>
      )}
      {moved.length === 0 ? (
        <p className="text-xs text-zinc-400">Same counts on every host.</p>
      ) : (
        <ul className="space-y-1.5">
          {moved.map((h) => (
            <li key={h.host} className="text-xs" data-host={h.host}>
              <span className="font-mono font-semibold text-zinc-800">{h.host}</span>
              <span className="ml-2 inline-flex flex-wrap gap-1 align-middle">
                {h.a === null && (
                  <span className="rounded bg-sky-50 px-1.5 text-sky-700 ring-1 ring-sky-200 ring-inset">
                    {incomplete.includes("first") ? "no result in the previous run" : "new in this run"}
                  </span>
                )}
                {h.b === null && (
                  <span className="rounded bg-zinc-100 px-1.5 text-zinc-600 ring-1 ring-zinc-200 ring-inset">
                    {incomplete.includes("second") ? "no result before it stopped" : "not in this run"}
                  </span>
                )}
                {HOST_COUNTERS.filter((c) => h.delta[c] !== 0).map((c) => {
                  const worse = COUNTER_DIRECTION[c] === "bad" && h.delta[c] > 0;
                  const better = COUNTER_DIRECTION[c] === "bad" && h.delta[c] < 0;
                  return (
                    <span
                      key={c}
                      data-counter={c}
                      className={cx(
                        "rounded px-1.5 font-mono tabular-nums ring-1 ring-inset",
                        worse
                          ? "bg-red-50 text-red-700 ring-red-200"
                          : better
                            ? "bg-green-50 text-green-700 ring-green-200"
                            : "bg-zinc-50 text-zinc-700 ring-zinc-200",
                      )}
                    >
                      {c} {signed(h.delta[c])}
                    </span>
                  );
                })}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Timings({ comparison }: { comparison: JobComparison["comparison"] }) {
  const { elapsed, playbook } = comparison;
  const largest = comparison.tasks
    .filter((t): t is typeof t & { delta_sec: number; a_sec: number; b_sec: number } => t.delta_sec !== null && t.delta_sec !== 0)
    .sort((x, y) => Math.abs(y.delta_sec) - Math.abs(x.delta_sec))
    .slice(0, TIMING_DELTAS_SHOWN);
  return (
    <div className="min-w-0" data-testid="comparison-timings">
      <SubHeading>Timing</SubHeading>
      <p className="text-xs text-zinc-700" data-testid="comparison-elapsed">
        {playbook ? (
          <>
            <span title="Playbook elapsed measured from each job's events: first task start to playbook end, to the millisecond">
              Playbook elapsed
            </span>{" "}
            <span className="font-mono tabular-nums">{formatDurationSeconds(playbook.a_sec)}</span> →{" "}
            <span className="font-mono tabular-nums">{formatDurationSeconds(playbook.b_sec)}</span>{" "}
            <Delta delta={playbook.delta_sec}>{formatDurationDelta(playbook.delta_sec)}</Delta>
          </>
        ) : elapsed.delta_sec === null || elapsed.a === null || elapsed.b === null ? (
          <span className="text-zinc-400">
            {comparison.idempotence_judgeable === false
              ? "No elapsed time: a run stopped before its end."
              : "No elapsed time in one of the runs (profile_tasks not enabled?)."}
          </span>
        ) : (
          <>
            <span title="The recaps' elapsed_sec: playbook elapsed from the log, whole seconds rounded down">Playbook elapsed</span>{" "}
            <span className="font-mono tabular-nums">{formatElapsedFloor(elapsed.a)}</span> →{" "}
            <span className="font-mono tabular-nums">{formatElapsedFloor(elapsed.b)}</span>{" "}
            <Delta delta={elapsed.delta_sec}>{formatElapsedFloorDelta(elapsed.delta_sec)}</Delta>{" "}
            <span className="text-zinc-400">(whole seconds)</span>
          </>
        )}
      </p>
      {largest.length > 0 && (
        <ol className="mt-2 space-y-1">
          {largest.map((t, index) => (
            <li key={`${index}-${t.task}`} className="flex items-baseline justify-between gap-3 text-xs">
              <span className="truncate text-zinc-800" title={t.task}>
                {t.task}
              </span>
              <span className="shrink-0 font-mono text-zinc-500 tabular-nums">
                {formatDurationSeconds(t.a_sec)} → {formatDurationSeconds(t.b_sec)}{" "}
                <Delta delta={t.delta_sec}>{formatDurationDelta(t.delta_sec)}</Delta>
              </span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** Slower in red, faster in green. */
function Delta({ delta, children }: { delta: number; children: ReactNode }) {
  return (
    <span
      className={cx("font-mono font-semibold tabular-nums", delta > 0 ? "text-red-600" : delta < 0 ? "text-green-700" : "text-zinc-500")}
    >
      ({children})
    </span>
  );
}

/** What kind of run both are: what the previous run was chosen by (same playbook, tags, skip tags, limit and check mode). */
function kindLabel(options: RunOptionsView): string {
  const parts = [options.playbook];
  if (options.tags.length > 0) parts.push(`tags ${options.tags.join(", ")}`);
  if (options.skipTags.length > 0) parts.push(`skipping ${options.skipTags.join(", ")}`);
  if (options.limit !== null) parts.push(`limit ${options.limit}`);
  if (options.check) parts.push("check mode");
  if (parts.length === 1) parts.push("full run");
  return parts.join(" · ");
}

function differenceLabel(difference: OptionDifference): string {
  const show = (value: unknown) =>
    value === null || value === undefined ? "none" : Array.isArray(value) ? value.join(", ") || "none" : String(value);
  switch (difference.option) {
    case "valuesHash":
      return "different form values";
    case "diff":
      return difference.second ? "diff shown only in this run" : "diff shown only in the previous run";
    default:
      return `${difference.option} ${show(difference.first)} → ${show(difference.second)}`;
  }
}

/** How the two runs were run: the kind they share, and what else differs (verbosity, environment, values). */
function ComparedOptions({ data }: { data: JobComparison }) {
  const options = data.second.options ?? data.first.options;
  if (!options) return null;
  return (
    <p className="text-xs text-zinc-500" data-testid="comparison-kind">
      Same kind of run: <span className="font-medium text-zinc-700">{kindLabel(options)}</span>
      {data.differences.length > 0 && (
        <>
          {" "}
          · <span data-testid="comparison-differences">{data.differences.map(differenceLabel).join("; ")}</span>
        </>
      )}
    </p>
  );
}

/** A set_stats value in one line: text as is, anything else as JSON; "not set" for a key the run did not set. */
function resultText(value: unknown): string {
  if (value === null) return "not set";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** What the playbook handed back (set_stats) that is not what the previous run handed back. */
function ChangedResults({ artifacts, previousId }: { artifacts: JobComparison["artifacts"]; previousId: number }) {
  if (!artifacts || artifacts.length === 0) return null;
  return (
    <div data-testid="comparison-artifacts">
      <h3 className="mb-1.5 text-xs font-semibold text-zinc-700">Results that differ from #{previousId}</h3>
      <ul className="space-y-1 text-xs">
        {artifacts.map((a) => (
          <li key={a.key} data-key={a.key} className="flex flex-wrap gap-x-2 font-mono">
            <span className="text-zinc-500">{a.key}</span>
            <span className="text-zinc-500 line-through">{resultText(a.first)}</span>
            <span aria-hidden="true" className="text-zinc-400">
              →
            </span>
            <span className="text-zinc-900">{resultText(a.second)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** "What changed again?": this finished job against the previous finished run of its form and of its kind. */
export function JobComparisonPanel({ jobId }: { jobId: number }) {
  const compared = useJobComparedWithPrevious(jobId, true);

  if (compared.isPending) {
    return (
      <p className="flex items-center gap-2 text-xs text-zinc-500">
        <Spinner className="size-3.5" /> Comparing with the previous run…
      </p>
    );
  }
  if (compared.isError) {
    return (
      <p className="text-xs text-zinc-500" data-testid="comparison-error">
        Could not compare with the previous run.
      </p>
    );
  }
  if (!("comparison" in compared.data)) {
    return (
      <p className="text-xs text-zinc-500" data-testid="comparison-none">
        No earlier complete run of this form with the same playbook, tags, limit and check mode to compare with.
      </p>
    );
  }

  const { first: previous, comparison } = compared.data;
  const changedOnlyOnce = [
    { side: "before", hint: `In #${previous.id}, not in this run.`, items: comparison.changed_only_first, tone: "neutral" },
    { side: "now", hint: `In this run, not in #${previous.id}.`, items: comparison.changed_only_second, tone: "changed" },
  ] as const;
  return (
    <Panel
      title="Compared with the previous run"
      data-testid="job-comparison"
      actions={
        <Link
          href={`/jobs/${previous.id}`}
          className="flex items-center gap-2 text-xs text-indigo-600 hover:underline"
          title={previous.finishedAt ? `finished ${formatDateTime(previous.finishedAt)}` : undefined}
          data-testid="previous-job-link"
        >
          <JobStatusBadge status={previous.status} />
          Previous run #{previous.id}
          {previous.finishedAt && <span className="text-zinc-500">· {formatWhen(previous.finishedAt)}</span>}
        </Link>
      }
    >
      <div className="space-y-4">
        <ComparedOptions data={compared.data} />
        <ChangedResults artifacts={compared.data.artifacts} previousId={previous.id} />
        {comparison.idempotence_judgeable === false ? (
          <CannotJudge incomplete={comparison.incomplete_runs ?? []} />
        ) : (
          <ChangedAgain tasks={comparison.changed_in_both} />
        )}
        {/* Timing gets the widest column: its rows hold a task name and three numbers. */}
        <div className="grid grid-cols-1 gap-5 md:grid-cols-2 xl:grid-cols-12">
          {changedOnlyOnce.map(({ side, ...list }) => (
            <div key={side} className="min-w-0 xl:col-span-2">
              <RecapList title={`Changed only ${side}`} {...list} empty="Nothing." testId={`changed-only-${side}`} />
            </div>
          ))}
          <div className="min-w-0 xl:col-span-3">
            <HostDeltas hosts={comparison.hosts} incomplete={comparison.incomplete_runs ?? []} />
          </div>
          <div className="min-w-0 md:col-span-2 xl:col-span-5">
            <Timings comparison={comparison} />
          </div>
        </div>
      </div>
    </Panel>
  );
}
