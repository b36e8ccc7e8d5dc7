import type { Timeline } from "@/server/recap/timeline";
import { queryKeys } from "./query-keys";
import { useFinishedJobQuery } from "./use-finished-job-query";

/**
 * The task timeline of a finished job, from its structured events. A 404 is retried a few
 * times, as for the recap: the last events may be stored a moment after the final status
 * arrives. After that a 404 is the answer "this job has no events" (an RTE without the
 * callback plugin), and the caller shows nothing.
 */
export function useJobTimeline(id: number, enabled: boolean) {
  return useFinishedJobQuery<Timeline>(queryKeys.jobTimeline(id), `/api/jobs/${id}/timeline`, enabled, { statuses: [404], lateTries: 3 });
}
