"use client";

import { useCallback } from "react";
import { ApiError } from "@/components/api/client";
import { useJobRecap } from "@/components/hooks/use-job-recap";
import { useJobTasks } from "@/components/hooks/use-job-tasks";
import { useJobTimeline } from "@/components/hooks/use-job-timeline";
import { RecapReport } from "@/components/recap/recap-report";
import { Panel } from "@/components/ui/panel";
import { Spinner } from "@/components/ui/states";
import { firstTaskLine } from "./task-links";

/**
 * PLAY RECAP and run analytics of a finished job; task names link to their first line in the
 * output. `timeline`: the run has one to measure its elapsed time with (it printed a play).
 */
export function JobRecap({ jobId, timeline: withTimeline }: { jobId: number; timeline: boolean }) {
  const recap = useJobRecap(jobId, true);
  const markers = useJobTasks(jobId).data;
  // The timeline (same query as the Timeline panel, fetched once) measures the playbook to the
  // millisecond; the recap's elapsed_sec is whole seconds. Without events there is none. A run
  // that stopped before its end has no playbook end: so far is where its plays end, as drawn.
  const timeline = useJobTimeline(jobId, withTimeline).data;
  const measured = timeline?.total_sec ?? (timeline?.plays.length ? Math.max(...timeline.plays.map((play) => play.end_sec)) : null);
  const taskLine = useCallback((task: string) => (markers ? firstTaskLine(markers, task) : null), [markers]);

  if (recap.isPending) {
    return (
      <Panel title="Play recap">
        <p className="flex items-center gap-2 text-sm text-zinc-500">
          <Spinner /> Reading the recap…
        </p>
      </Panel>
    );
  }
  if (recap.isError) {
    const missing = recap.error instanceof ApiError && recap.error.status === 404;
    return (
      <Panel title="Play recap">
        <p className="text-sm text-zinc-500" data-testid="recap-missing">
          {missing ? "No recap: the playbook did not get far enough to print one." : "Could not load the recap."}
        </p>
      </Panel>
    );
  }
  return (
    <RecapReport
      recap={recap.data}
      noRecap="No recap: the playbook stopped before any play ran."
      taskLine={taskLine}
      measuredElapsedSec={measured}
    />
  );
}
