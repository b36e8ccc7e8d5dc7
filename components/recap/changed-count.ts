import type { Recap } from "@/components/api/types";

/** Why PLAY RECAP's changed= total is not the number of tasks in "Changed tasks". */
export interface ChangedCountNote {
  /** Sum of changed= over the hosts. */
  counted: number;
  /** Tasks in changed_tasks (each once, only `changed:` lines: docs/recap.md). */
  listed: number;
  /** The one-line explanation shown under the list. */
  text: string;
  /**
   * True only when the numbers pin the cause down: one host, and the difference is exactly
   * the number of failed-but-ignored tasks (Ansible counts an ignored failure that reported
   * `changed: true` as changed, and prints no `changed:` line for it).
   */
  exact: boolean;
  /** The recap's ignored_failures, to show beside the list (empty when there are none). */
  ignored: string[];
  /** How to mark each of them: certain only when `exact`. */
  mark: string;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/**
 * The explanation for "changed=4 but 3 changed tasks", or null when the counts add up. Only
 * claims what the recap supports: it knows the counters, the listed tasks and the names of
 * the ignored failures, not whether each ignored failure reported changed.
 */
export function explainChangedCount(recap: Recap): ChangedCountNote | null {
  const hosts = recap.hosts ?? [];
  if (hosts.length === 0) return null;
  const counted = hosts.reduce((sum, row) => sum + row.changed, 0);
  const listed = (recap.changed_tasks ?? []).length;
  const ignored = recap.ignored_failures ?? [];
  const exact = fromChangedResults(recap, counted, listed);
  if (exact !== undefined) return exact;
  if (counted <= listed) return null;
  const extra = counted - listed;

  if (hosts.length === 1 && ignored.length === extra) {
    return {
      counted,
      listed,
      exact: true,
      ignored,
      mark: "failed, ignored (counted as changed by Ansible)",
      text: `PLAY RECAP counts ${plural(counted, "change", "changes")}: ${plural(listed, "task", "tasks")} above + ${plural(
        extra,
        "failed-but-ignored task",
        "failed-but-ignored tasks",
      )} that reported changed.`,
    };
  }
  const mark = "failed, ignored (may be counted as changed by Ansible)";
  const ignoredHint =
    ignored.length > 0
      ? " A failed task ignored with ignore_errors that reported changed also counts, with no `changed:` line: the ignored failures are marked below."
      : "";
  if (hosts.length === 1) {
    return {
      counted,
      listed,
      exact: false,
      ignored,
      mark,
      text: `PLAY RECAP counts ${plural(counted, "change", "changes")}, ${plural(listed, "task", "tasks")} listed above: the list names a task once, even if tasks of the same name changed more than once.${ignoredHint}`,
    };
  }
  return {
    counted,
    listed,
    exact: false,
    ignored,
    mark,
    text: `PLAY RECAP counts ${plural(counted, "change", "changes")} over ${hosts.length} hosts, one per task and host; the list above names each task once.${ignoredHint}`,
  };
}

const hostList = (hosts: string[]): string =>
  hosts.length <= 3 ? hosts.join(", ") : `${hosts.slice(0, 3).join(", ")} +${hosts.length - 3}`;

/**
 * With the events' per-host detail (`changed_results`, a job's recap from events), the note is
 * exact whatever the number of hosts: every changed= is a changed result of a task or an ignored
 * failure that reported changed. undefined when the detail is missing or does not add up to
 * PLAY RECAP's total (then the hedged notes above apply); null when there is nothing to explain.
 */
function fromChangedResults(recap: Recap, counted: number, listed: number): ChangedCountNote | null | undefined {
  const detail = recap.changed_results;
  if (!detail) return undefined;
  const fromTasks = detail.changed.reduce((sum, e) => sum + e.results, 0);
  const fromIgnored = detail.ignored_failures.reduce((sum, e) => sum + e.results, 0);
  if (fromTasks + fromIgnored !== counted) return undefined;
  if (counted === listed && fromIgnored === 0) return null;
  const hostCount = new Set(detail.changed.flatMap((e) => e.hosts)).size;
  const tasksPart =
    fromTasks > 0
      ? `${plural(fromTasks, "change", "changes")} of the ${plural(listed, "task", "tasks")} above${hostCount > 1 ? ` on ${hostCount} hosts` : ""}`
      : "";
  const ignoredPart =
    fromIgnored > 0 ? `${plural(fromIgnored, "failed-but-ignored result", "failed-but-ignored results")} that reported changed` : "";
  return {
    counted,
    listed,
    exact: true,
    ignored: detail.ignored_failures.map((e) => `${e.task} (on ${hostList(e.hosts)})`),
    mark: "failed, ignored (counted as changed by Ansible)",
    text: `PLAY RECAP counts ${plural(counted, "change", "changes")}, one per task and host: ${[tasksPart, ignoredPart].filter(Boolean).join(" + ")}.`,
  };
}
