import { useQuery } from "@tanstack/react-query";
import { ApiError, apiFetch } from "@/components/api/client";
import type { Recap } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/**
 * The PLAY RECAP of a finished job. Enabled by the caller once the job is final; the recap
 * may be written a moment after the final status arrives, so a 404/409 is retried a few
 * times before giving up.
 */
export function useJobRecap(id: number, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.jobRecap(id),
    queryFn: ({ signal }) => apiFetch<Recap>(`/api/jobs/${id}/recap`, { signal }),
    enabled,
    staleTime: Infinity,
    retry: (failureCount, error) => {
      if (error instanceof ApiError && (error.status === 404 || error.status === 409)) return failureCount < 5;
      return failureCount < 2;
    },
    retryDelay: (attempt) => Math.min(500 * 2 ** attempt, 4000),
  });
}
