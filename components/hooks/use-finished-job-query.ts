import { useQuery, type QueryKey } from "@tanstack/react-query";
import { ApiError, apiFetch } from "@/components/api/client";

/**
 * Something the server derives from a finished job (its recap, its timeline). Enabled by the
 * caller once the job is final; what it reads may be stored a moment after the final status
 * arrives, so an answer with one of the `late` statuses is retried up to `lateTries` times
 * before it counts. Never stale: a finished job does not change.
 */
export function useFinishedJobQuery<T>(
  queryKey: QueryKey,
  path: string,
  enabled: boolean,
  late: { statuses: number[]; lateTries: number },
) {
  return useQuery({
    queryKey,
    queryFn: ({ signal }) => apiFetch<T>(path, { signal }),
    enabled,
    staleTime: Infinity,
    retry: (failureCount, error) => {
      if (error instanceof ApiError && late.statuses.includes(error.status)) return failureCount < late.lateTries;
      return failureCount < 2;
    },
    retryDelay: (attempt) => Math.min(500 * 2 ** attempt, 4000),
  });
}
