import type { OutputMarker } from "@/components/api/types";
import type { Timeline } from "@/server/recap/timeline";

/** Tasks and handlers of the index: what a timeline row or a recap's task name can point at. */
function isTaskMarker(marker: OutputMarker): boolean {
  return marker.kind === "task" || marker.kind === "handler";
}

/**
 * The first output line of each timeline task (in the order of `timeline.tasks`), from the
 * job's task index (GET /api/jobs/ID/tasks), or null when the index has no such task.
 *
 * A timeline task is matched by its play's name and its own name, in order: the n-th
 * "install" of play "web" is the n-th such banner after the one matched before it, so a task
 * that runs again (a serial batch, a flushed handler, an include in a loop) links to its own
 * run. A banner the timeline has no row for (`strategy: free` prints one per host) is
 * skipped. A task whose banner is not found after the previous match (the two disagree on
 * the order) links to its first banner instead.
 */
export function timelineTaskLines(timeline: Pick<Timeline, "tasks" | "plays">, markers: readonly OutputMarker[]): (number | null)[] {
  const playNames = new Map(timeline.plays.map((p) => [p.number, p.name]));
  const tasks = markers.filter(isTaskMarker);
  let next = 0;
  return timeline.tasks.map((task) => {
    const play = playNames.get(task.play) ?? "";
    const matches = (m: OutputMarker) => m.name === task.task && m.play === play;
    for (let i = next; i < tasks.length; i++) {
      if (matches(tasks[i]!)) {
        next = i + 1;
        return tasks[i]!.line;
      }
    }
    return tasks.find(matches)?.line ?? null;
  });
}

/** The first output line of the task (or handler) of this name, for the recap's task lists. */
export function firstTaskLine(markers: readonly OutputMarker[], name: string): number | null {
  return markers.find((m) => isTaskMarker(m) && m.name === name)?.line ?? null;
}

export interface TaskGroup {
  play: string;
  entries: OutputMarker[];
}

/** The index grouped by play for the "Jump to task" list: each play's own banner first, then its tasks, handlers and the recap. */
export function groupByPlay(markers: readonly OutputMarker[]): TaskGroup[] {
  const groups: TaskGroup[] = [];
  for (const marker of markers) {
    const last = groups[groups.length - 1];
    if (marker.kind === "play" || !last || (marker.kind !== "recap" && last.play !== marker.play)) {
      groups.push({ play: marker.kind === "recap" ? "" : marker.play, entries: [marker] });
    } else {
      last.entries.push(marker);
    }
  }
  return groups;
}
