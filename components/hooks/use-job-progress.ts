import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { JobProgress } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** How often a running job's progress is asked again; between answers the time left counts down locally. */
export const JOB_PROGRESS_REFRESH_MS = 3000;
/**
 * Before its first task the answer is asked again sooner: a short job's first task starts within
 * a second, and "no task started yet" next to TASK lines in the output reads as a fault.
 */
export const JOB_PROGRESS_FIRST_TASK_REFRESH_MS = 1000;

/** When to ask again after `progress` (none yet, or no task seen: soon). */
export function jobProgressRefreshMs(progress: Pick<JobProgress, "tasks_seen"> | undefined): number {
  return progress === undefined || progress.tasks_seen === 0 ? JOB_PROGRESS_FIRST_TASK_REFRESH_MS : JOB_PROGRESS_REFRESH_MS;
}

/** A running job's progress and time left (GET /api/jobs/ID/progress), refreshed while it runs. */
export function useJobProgress(id: number, running: boolean) {
  return useQuery({
    queryKey: queryKeys.jobProgress(id),
    queryFn: ({ signal }) => apiFetch<JobProgress>(`/api/jobs/${id}/progress`, { signal }),
    enabled: running,
    refetchInterval: (query) => (running ? jobProgressRefreshMs(query.state.data) : false),
  });
}

/** The progress of the job list's running jobs, in one request (GET /api/jobs/progress?ids=…). */
export function useJobsProgress(ids: readonly number[]) {
  return useQuery({
    queryKey: queryKeys.jobsProgress(ids),
    queryFn: async ({ signal }) =>
      (await apiFetch<{ progress: JobProgress[] }>(`/api/jobs/progress?ids=${ids.join(",")}`, { signal })).progress,
    enabled: ids.length > 0,
    refetchInterval: JOB_PROGRESS_REFRESH_MS,
    // A running job that ends keeps its bar until the list stops asking about it.
    placeholderData: keepPreviousData,
  });
}
