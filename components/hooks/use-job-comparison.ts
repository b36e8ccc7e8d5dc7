import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { JobComparison } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/**
 * A finished job against the previous finished run of the same form (first = previous,
 * second = this job). A 404 means there is no previous run: an answer, not a failure, and not
 * retried. Both runs are final, so the answer never goes stale.
 */
export function useJobComparedWithPrevious(id: number, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.jobComparedWithPrevious(id),
    queryFn: ({ signal }) => apiFetch<JobComparison>(`/api/jobs/${id}/compare/previous`, { signal }),
    enabled,
    staleTime: Infinity,
  });
}
