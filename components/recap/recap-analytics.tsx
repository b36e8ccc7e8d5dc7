import type { ReactNode } from "react";
import type { Recap } from "@/components/api/types";
import { Fact } from "@/components/ui/fact";
import { formatElapsed, formatTaskSeconds } from "@/components/ui/format";
import { RECAP_STATUS_STYLE } from "./colours";
import { lineHash, onLineLinkClick } from "@/components/jobs/line-hash";
import { RecapList, type TaskLine } from "./recap-list";
import { recapView } from "./recap-view";

function Stat({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Fact label={label} valueClassName="text-base font-semibold text-zinc-900 tabular-nums">
      {children}
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
export function RecapAnalytics({ recap, taskLine }: { recap: Recap; taskLine?: TaskLine }) {
  // An incomplete run shows what it got so far (partial_*), marked "so far".
  const view = recapView(recap);
  const slowest = view.slowest.slice(0, 8);
  const longest = Math.max(...slowest.map((t) => t.seconds), 0);
  const status = recap.status ? RECAP_STATUS_STYLE[recap.status] : undefined;
  const hosts = view.hosts;
  const soFar = view.partial ? " (so far)" : "";

  return (
    <div className="space-y-4" data-testid="recap-analytics">
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Stat label={`Elapsed${soFar}`}>{view.elapsedSec == null ? "—" : formatElapsed(view.elapsedSec)}</Stat>
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
                      <span className="shrink-0 font-mono text-zinc-600 tabular-nums">{formatTaskSeconds(task.seconds)}</span>
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
        <RecapList {...CHANGED} items={recap.changed_tasks ?? []} link={taskLine} />
        <div className="space-y-4">
          {PROBLEMS.map(({ list, ...shown }) => (
            <RecapList key={list} {...shown} items={recap[list] ?? []} link={list === "unreachable_hosts" ? undefined : taskLine} />
          ))}
        </div>
      </div>
    </div>
  );
}
