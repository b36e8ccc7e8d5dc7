import { useQuery } from "@tanstack/react-query";
import { ApiError, apiFetch } from "@/components/api/client";
import type { Timeline } from "@/server/recap/timeline";
import { queryKeys } from "./query-keys";

/**
 * The task timeline of a finished job, from its structured events. Enabled by the caller once
 * the job is final. A 404 is retried a few times, as for the recap: the last events may be
 * stored a moment after the final status arrives. After that a 404 is the answer "this job has
 * no events" (an RTE without the callback plugin), and the caller shows nothing.
 */
export function useJobTimeline(id: number, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.jobTimeline(id),
    queryFn: ({ signal }) => apiFetch<Timeline>(`/api/jobs/${id}/timeline`, { signal }),
    enabled,
    staleTime: Infinity,
    retry: (failureCount, error) => {
      if (error instanceof ApiError && error.status === 404) return failureCount < 3;
      return failureCount < 2;
    },
    retryDelay: (attempt) => Math.min(500 * 2 ** attempt, 4000),
  });
}
