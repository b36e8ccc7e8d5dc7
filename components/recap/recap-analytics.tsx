import type { ReactNode } from "react";
import type { Recap } from "@/components/api/types";
import { Fact } from "@/components/ui/fact";
import { formatDurationSeconds, formatElapsedFloor } from "@/components/ui/format";
import { explainChangedCount } from "./changed-count";
import { RECAP_STATUS_STYLE } from "./colours";
import { lineHash, onLineLinkClick } from "@/components/jobs/line-hash";
import { RecapList, type TaskLine } from "./recap-list";
import { recapView } from "./recap-view";

function Stat({ label, children, title }: { label: string; children: ReactNode; title?: string }) {
  return (
    <Fact label={label} valueClassName="text-base font-semibold text-zinc-900 tabular-nums">
      {title ? <span title={title}>{children}</span> : children}
    </Fact>
  );
}

const CHANGED = { title: "Changed tasks", empty: "Nothing changed.", tone: "changed", testId: "recap-changed-tasks" } as const;

/** What went wrong, in one column. */
const PROBLEMS = [
  { list: "failed_tasks", title: "Failed tasks", empty: "No failures.", tone: "bad", testId: "recap-failed-tasks" },
  { list: "unreachable_hosts", title: "Unreachable hosts", empty: "All hosts reachable.", tone: "bad", testId: "recap-unreachable-hosts" },
  { list: "ignored_failures", title: "Ignored failures", empty: "None.", tone: "ignored", testId: "recap-ignored-failures" },
] as const;

/**
 * Everything the recap knows beyond the per-host counters. Each part is optional: a recap
 * from a run without the profile_tasks callback has no task timings, for instance. With
 * `taskLine` (a job's recap), task names link to their first line in the output.
 */
/**
 * What "Playbook elapsed" shows and says it measures: the time measured from the job's events
 * when there is one, else the recap's elapsed time (so far, for a run that stopped before its
 * end), whole seconds rounded down.
 */
function playbookElapsed(view: ReturnType<typeof recapView>, measured: number | null | undefined): { text: string; title: string } {
  if (measured != null) {
    return {
      text: formatDurationSeconds(measured),
      title: view.partial
        ? "Playbook elapsed so far, measured from the job's events: first task start to the last thing the run reported before it stopped."
        : "Playbook elapsed, measured from the job's events: first task start to playbook end. Not the job's launch-to-end duration.",
    };
  }
  if (view.elapsedSec == null) return { text: "—", title: "No timing in this log (no profile_tasks summary, no log-file timestamps)." };
  return {
    text: formatElapsedFloor(view.elapsedSec),
    title: `Playbook elapsed from the log (profile_tasks or log-file timestamps)${view.partial ? " until the run stopped" : ""}, whole seconds rounded down: ${view.elapsedSec} s.`,
  };
}

export function RecapAnalytics({
  recap,
  taskLine,
  measuredElapsedSec,
}: {
  recap: Recap;
  taskLine?: TaskLine;
  measuredElapsedSec?: number | null;
}) {
  // An incomplete run shows what it got so far (partial_*), marked "so far".
  const view = recapView(recap);
  const elapsed = playbookElapsed(view, measuredElapsedSec);
  const changedNote = explainChangedCount(recap);
  const slowest = view.slowest.slice(0, 8);
  const longest = Math.max(...slowest.map((t) => t.seconds), 0);
  const status = recap.status ? RECAP_STATUS_STYLE[recap.status] : undefined;
  const hosts = view.hosts;
  const soFar = view.partial ? " (so far)" : "";

  return (
    <div className="space-y-4" data-testid="recap-analytics">
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Stat label={`Playbook elapsed${soFar}`} title={elapsed.title}>
          <span data-testid="recap-elapsed">{elapsed.text}</span>
        </Stat>
        <Stat label="Result">{status ? <span className={status.text}>{status.title}</span> : "—"}</Stat>
        <Stat label="Plays">{recap.plays?.length ?? "—"}</Stat>
        <Stat label={`Hosts${soFar}`}>{hosts.length}</Stat>
      </dl>
      <div className="grid grid-cols-1 gap-5 border-t border-zinc-100 pt-4 md:grid-cols-2 xl:grid-cols-3">
        <div className="min-w-0" data-testid="recap-slowest-tasks">
          <h3 className="mb-1.5 text-xs font-semibold text-zinc-700">Slowest tasks{view.partial ? " (tasks that ended)" : ""}</h3>
          {slowest.length === 0 ? (
            <p className="text-xs text-zinc-400">No task timings in this run.</p>
          ) : (
            <ol className="space-y-1.5">
              {slowest.map((task, index) => {
                const line = taskLine?.(task.task) ?? null;
                return (
                  <li key={`${index}-${task.task}`} className="text-xs">
                    <div className="flex items-baseline justify-between gap-3">
                      {line === null ? (
                        <span className="truncate text-zinc-800" title={task.task}>
                          {task.task}
                        </span>
                      ) : (
                        <a
                          href={lineHash(line)}
                          onClick={onLineLinkClick(line)}
                          className="truncate text-zinc-800 hover:text-indigo-700 hover:underline"
                          title={task.task}
                        >
                          {task.task}
                        </a>
                      )}
                      <span className="shrink-0 font-mono text-zinc-600 tabular-nums">{formatDurationSeconds(task.seconds)}</span>
                    </div>
                    <div className="mt-0.5 h-1 rounded-full bg-zinc-100">
                      <div
                        className="h-1 rounded-full bg-indigo-500"
                        style={{ width: `${longest > 0 ? Math.max(2, (task.seconds / longest) * 100) : 0}%` }}
                      />
                    </div>
                  </li>
                );
              })}
            </ol>
          )}
        </div>
        <div className="min-w-0 space-y-2">
          <RecapList {...CHANGED} items={recap.changed_tasks ?? []} link={taskLine} />
          {changedNote && (
            <div
              className="rounded border border-amber-200 bg-amber-50/60 px-2 py-1.5 text-[11px] text-amber-900"
              data-testid="recap-changed-count"
              data-counted={changedNote.counted}
              data-listed={changedNote.listed}
              data-exact={changedNote.exact}
            >
              <p>{changedNote.text}</p>
              {changedNote.ignored.length > 0 && (
                <ul className="mt-1 space-y-0.5">
                  {changedNote.ignored.map((task, index) => (
                    <li key={`${index}-${task}`} className="flex items-start gap-2">
                      <span aria-hidden="true" className="mt-1.5 size-1.5 shrink-0 rounded-full bg-fuchsia-500" />
                      <span className="break-words">
                        <span className="text-zinc-800">{task}</span> <span className="text-fuchsia-700">{changedNote.mark}</span>
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
        </div>
        <div className="space-y-4">
          {PROBLEMS.map(({ list, ...shown }) => (
            <RecapList key={list} {...shown} items={recap[list] ?? []} link={list === "unreachable_hosts" ? undefined : taskLine} />
          ))}
        </div>
      </div>
    </div>
  );
}
