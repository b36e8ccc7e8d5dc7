"use client";

import { useMemo } from "react";
import { ApiError } from "@/components/api/client";
import { useJobTasks } from "@/components/hooks/use-job-tasks";
import { useJobTimeline } from "@/components/hooks/use-job-timeline";
import { COUNTER_COLOURS } from "@/components/recap/colours";
import { cx } from "@/components/ui/cx";
import { formatDurationSeconds } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";
import {
  TIMELINE_HOST_STATUSES,
  worstHostStatus,
  type Timeline,
  type TimelineHostStatus,
  type TimelinePlay,
  type TimelineTask,
} from "@/server/recap/timeline";
import { lineHash, onLineLinkClick } from "./line-hash";
import { timelineTaskLines } from "./task-links";

/** Task name | time axis | duration. Header, rows and the gridline overlay share it so they line up. */
const GRID = "grid grid-cols-[9rem_minmax(0,1fr)_5rem] sm:grid-cols-[16rem_minmax(0,1fr)_5.5rem]";
/** Inside the axis column: room for the first and last tick labels. */
const TRACK = "relative mx-3 h-full";
const HOSTS_IN_TITLE = 12;

/** ansible's colours (see the recap table); a task with no host result is grey. */
const statusBar = (status: TimelineHostStatus): string => COUNTER_COLOURS[status].bar;
const NO_RESULT_BAR = "bg-zinc-300";

/** Tick step with about `target` ticks over `span` seconds: 1, 2 or 5 times a power of ten. */
function tickStep(span: number, target = 8): number {
  const raw = span / target;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  return Math.max(step, 0.001);
}

function ticks(span: number): number[] {
  const step = tickStep(span);
  const out: number[] = [];
  // Integer multiples, so 0.1 + 0.2 never prints as 0.30000000000000004.
  for (let i = 0; i * step <= span + 1e-9; i++) out.push(Number((i * step).toFixed(3)));
  return out;
}

function tickLabel(seconds: number, step: number): string {
  const decimals = step < 1 ? Math.ceil(-Math.log10(step) - 1e-9) : 0;
  // "0 s 0.5 s 1 s 1.5 s", not "0.0 s 0.5 s 1.0 s": Number() drops the zeros toFixed pads with.
  // The unit after a space, as every other duration on the page (components/ui/format.ts).
  return `${Number(seconds.toFixed(decimals))} s`;
}

const pct = (seconds: number, span: number): string => `${Math.min(100, Math.max(0, (seconds / span) * 100))}%`;

function taskTitle(task: TimelineTask): string {
  const lines = [
    `${task.task}${task.kind === "task" ? "" : ` (${task.kind})`}`,
    `${formatDurationSeconds(task.duration_sec)}: ${formatDurationSeconds(task.start_sec)} → ${formatDurationSeconds(task.end_sec)}`,
  ];
  if (task.hosts.length === 0) lines.push("no host result");
  if (task.hosts.length > HOSTS_IN_TITLE) {
    const counts = [...TIMELINE_HOST_STATUSES]
      .reverse()
      .map((s) => [s, task.hosts.filter((h) => h.status === s).length] as const)
      .filter(([, n]) => n > 0);
    lines.push(`${task.hosts.length} hosts: ${counts.map(([s, n]) => `${s} ${n}`).join(", ")}`);
  }
  for (const h of task.hosts.slice(0, HOSTS_IN_TITLE)) lines.push(`${h.host}: ${h.status} at ${formatDurationSeconds(h.at_sec)}`);
  if (task.hosts.length > HOSTS_IN_TITLE) lines.push(`… and ${task.hosts.length - HOSTS_IN_TITLE} more`);
  return lines.join("\n");
}

function Axis({ span }: { span: number }) {
  const step = tickStep(span);
  return (
    <div className={cx(GRID, "sticky top-0 z-20 h-6 border-b border-zinc-200 bg-zinc-50 text-[11px] text-zinc-500")}>
      <div className="flex items-center px-3 font-semibold tracking-wide uppercase">Task</div>
      <div className={TRACK} aria-hidden="true">
        {ticks(span).map((t, index) => {
          const at = t / span;
          return (
            <span
              key={t}
              // On a phone the axis is a few rem wide: every other label, or they run together.
              className={cx(
                "absolute top-1 tabular-nums",
                at > 0.02 && (at > 0.98 ? "-translate-x-full" : "-translate-x-1/2"),
                index % 2 === 1 && "max-sm:hidden",
              )}
              style={{ left: pct(t, span) }}
            >
              {tickLabel(t, step)}
            </span>
          );
        })}
      </div>
      <div className="flex items-center justify-end px-3 font-semibold tracking-wide uppercase">Time</div>
    </div>
  );
}

/** Tick gridlines and play boundaries behind the bars, one layer for all rows. */
function Gridlines({ span, plays }: { span: number; plays: TimelinePlay[] }) {
  return (
    <div className={cx(GRID, "pointer-events-none absolute inset-0")} aria-hidden="true">
      <div />
      <div className={TRACK}>
        {ticks(span).map((t) => (
          <div key={t} className="absolute inset-y-0 w-px bg-zinc-100" style={{ left: pct(t, span) }} />
        ))}
        {plays.slice(1).map((p) => (
          <div
            key={p.number}
            className="absolute inset-y-0 border-l border-dashed border-indigo-300"
            style={{ left: pct(p.start_sec, span) }}
          />
        ))}
      </div>
    </div>
  );
}

function PlayRow({ play, span }: { play: TimelinePlay; span: number }) {
  return (
    <div className={cx(GRID, "h-[18px] bg-indigo-50/60 text-[11px]")} data-testid="timeline-play" data-play={play.number}>
      <div className="truncate px-3 font-semibold text-indigo-900" title={`Play ${play.number}: ${play.name}`}>
        Play {play.number} · {play.name}
      </div>
      <div className={TRACK}>
        <div
          className="absolute top-[8px] h-0.5 rounded-full bg-indigo-300"
          style={{ left: pct(play.start_sec, span), width: pct(play.end_sec - play.start_sec, span), minWidth: 2 }}
        />
      </div>
      <div className="px-3 text-right font-mono text-indigo-900/70 tabular-nums">
        {formatDurationSeconds(play.end_sec - play.start_sec)}
      </div>
    </div>
  );
}

function TaskRow({ task, span, line }: { task: TimelineTask; span: number; line: number | null }) {
  const status = worstHostStatus(task.hosts);
  return (
    <li
      className={cx(GRID, "h-[18px] text-xs hover:bg-zinc-100/80")}
      title={taskTitle(task)}
      data-testid="timeline-task"
      data-status={status ?? "none"}
      data-kind={task.kind}
    >
      <div className="truncate px-3 text-zinc-800">
        {line === null ? (
          task.task
        ) : (
          // The task's first line in the output above (#L…, without a history entry).
          <a
            href={lineHash(line)}
            onClick={onLineLinkClick(line)}
            className="hover:text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-600"
            data-testid="timeline-task-link"
            data-line={line}
          >
            {task.task}
          </a>
        )}
        {task.kind !== "task" && <span className="ml-1 text-[11px] text-zinc-400">{task.kind}</span>}
      </div>
      <div className={TRACK}>
        <div
          data-testid="timeline-bar"
          className={cx("absolute top-[4px] h-[10px] rounded-[2px]", status ? statusBar(status) : NO_RESULT_BAR)}
          style={{ left: pct(task.start_sec, span), width: pct(task.duration_sec, span), minWidth: 2 }}
        />
      </div>
      <div className="px-3 text-right font-mono text-[11px] leading-[18px] text-zinc-600 tabular-nums">
        {formatDurationSeconds(task.duration_sec)}
      </div>
    </li>
  );
}

function Legend({ tasks }: { tasks: TimelineTask[] }) {
  const shown = new Set(tasks.map((t) => worstHostStatus(t.hosts)));
  const statuses = [...TIMELINE_HOST_STATUSES].reverse().filter((s) => shown.has(s));
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-1 border-t border-zinc-200 px-4 py-2 text-[11px] text-zinc-500">
      <span>Bar colour: the task&apos;s most significant host status.</span>
      {statuses.map((s) => (
        <span key={s} className="flex items-center gap-1.5">
          <span className={cx("inline-block h-2.5 w-3 rounded-[2px]", statusBar(s))} />
          {s}
        </span>
      ))}
      {shown.has(null) && (
        <span className="flex items-center gap-1.5">
          <span className={cx("inline-block h-2.5 w-3 rounded-[2px]", NO_RESULT_BAR)} />
          no host result
        </span>
      )}
      <span className="flex items-center gap-1.5">
        <span className="inline-block h-3 border-l border-dashed border-indigo-400" />
        play boundary
      </span>
    </div>
  );
}

/** `lines[i]`: the first output line of `timeline.tasks[i]` (a link to it), or null. */
export function TimelineChart({ timeline, lines }: { timeline: Timeline; lines?: readonly (number | null)[] }) {
  const { tasks, plays } = timeline;
  const span = Math.max(timeline.total_sec ?? 0, ...tasks.map((t) => t.end_sec), ...plays.map((p) => p.end_sec), 0.001);
  return (
    <>
      <div className="max-h-[30rem] overflow-y-auto" data-testid="timeline-rows">
        <Axis span={span} />
        <div className="relative">
          <Gridlines span={span} plays={plays} />
          {plays.map((play) => {
            const own = tasks.flatMap((task, i) => (task.play === play.number ? [{ task, line: lines?.[i] ?? null }] : []));
            return (
              <section key={play.number} className="relative" aria-label={`Play ${play.number}: ${play.name}`}>
                <PlayRow play={play} span={span} />
                <ol>
                  {own.map(({ task, line }, index) => (
                    <TaskRow key={`${index}-${task.task}`} task={task} span={span} line={line} />
                  ))}
                </ol>
              </section>
            );
          })}
        </div>
      </div>
      <Legend tasks={tasks} />
    </>
  );
}

/**
 * Where the time of a finished job went: one row per task on a time axis, from the job's
 * structured events. Shows nothing for a job without events (the recap above still comes
 * from its text) or while it loads: it sits below the recap, which has its own spinner.
 * A task's name links to its first line in the output (matched in the job's task index).
 */
export function JobTimeline({ jobId }: { jobId: number }) {
  const timeline = useJobTimeline(jobId, true);
  const markers = useJobTasks(jobId).data;
  const lines = useMemo(() => (timeline.data && markers ? timelineTaskLines(timeline.data, markers) : undefined), [timeline.data, markers]);
  if (timeline.isPending) return null;
  if (timeline.isError) {
    if (timeline.error instanceof ApiError && timeline.error.status === 404) return null;
    return (
      <Panel title="Timeline">
        <p className="text-sm text-zinc-500">Could not load the timeline.</p>
      </Panel>
    );
  }
  const data = timeline.data;
  const summary =
    data.total_sec === null
      ? `${data.tasks.length} ${data.tasks.length === 1 ? "task" : "tasks"} · cut short, no PLAY RECAP`
      : `${data.tasks.length} ${data.tasks.length === 1 ? "task" : "tasks"} in ${formatDurationSeconds(data.total_sec)} (playbook elapsed)`;
  return (
    <Panel
      title="Timeline"
      actions={
        <span className="text-xs text-zinc-500 tabular-nums" title="From the job's events: first task start to playbook end">
          {summary}
        </span>
      }
      bodyClassName="p-0"
      data-testid="job-timeline"
    >
      {data.tasks.length === 0 ? (
        <p className="px-4 py-3 text-sm text-zinc-500">No task started, so there is no time to show.</p>
      ) : (
        <TimelineChart timeline={data} lines={lines} />
      )}
    </Panel>
  );
}
