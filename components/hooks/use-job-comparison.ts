import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { JobComparison } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/**
 * A finished job against the previous complete run of the same form (first = previous,
 * second = this job). `{previous: null}` means there is none (asked with `optional=1`, so the
 * first run of a form logs no 404). Both runs are final, so the answer never goes stale.
 */
export function useJobComparedWithPrevious(id: number, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.jobComparedWithPrevious(id),
    queryFn: ({ signal }) => apiFetch<JobComparison | { previous: null }>(`/api/jobs/${id}/compare/previous?optional=1`, { signal }),
    enabled,
    staleTime: Infinity,
  });
}
