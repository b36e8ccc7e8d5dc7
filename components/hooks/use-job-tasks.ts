import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { apiFetch } from "@/components/api/client";
import type { OutputTaskIndex } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** While the job runs, the index is read again at most this often (when its output grew). */
const REFRESH_MS = 5000;
/** ... and this often while it is still empty: the first task's banner should not wait 5 s ("No tasks yet" beside TASK lines). */
const FIRST_TASK_REFRESH_MS = 1000;

/** How long after the index was last read it may be read again (an empty index: sooner). */
export function taskIndexRefreshMs(tasks: readonly unknown[] | undefined): number {
  return tasks === undefined || tasks.length === 0 ? FIRST_TASK_REFRESH_MS : REFRESH_MS;
}

/**
 * Where each play, task, handler and the PLAY RECAP start in a job's output (GET
 * /api/jobs/ID/tasks): the pane's "Jump to task", the timeline's and the recap's links. One
 * query per job, shared by all of them. Pass `live` (the pane does) to read it again while
 * the job runs: when its line count grew, at most every REFRESH_MS, and once more at the end.
 */
export function useJobTasks(jobId: number, live?: { lines: number; final: boolean }) {
  const query = useQuery({
    queryKey: queryKeys.jobTasks(jobId),
    queryFn: async ({ signal }) => (await apiFetch<OutputTaskIndex>(`/api/jobs/${jobId}/tasks`, { signal })).tasks,
    staleTime: Infinity,
    retry: 1,
  });
  const { refetch, dataUpdatedAt, isFetching } = query;
  const refreshMs = taskIndexRefreshMs(query.data);
  // The line count the index was last asked for (a ref: only the effect below reads it).
  const readAt = useRef<{ jobId: number; lines: number; final: boolean } | null>(null);
  const lines = live?.lines;
  const final = live?.final;

  useEffect(() => {
    if (lines === undefined || final === undefined || isFetching) return;
    const last = readAt.current;
    if (last === null || last.jobId !== jobId) {
      // The first answer is the query's own read: count from it.
      if (dataUpdatedAt > 0) readAt.current = { jobId, lines, final };
      return;
    }
    if (last.lines === lines && last.final === final) return;
    const timer = setTimeout(
      () => {
        readAt.current = { jobId, lines, final };
        void refetch({ cancelRefetch: false });
      },
      final ? 0 : Math.max(0, dataUpdatedAt + refreshMs - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [jobId, lines, final, dataUpdatedAt, isFetching, refetch, refreshMs]);

  return query;
}
