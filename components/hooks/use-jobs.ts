import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { JobListQuery, JobPage } from "@/components/api/types";
import { queryKeys } from "./query-keys";

export const JOB_LIST_REFRESH_MS = 3000;

/** The query string of GET /api/jobs: only what is set, in a fixed order. */
export function jobListSearch(query: JobListQuery): string {
  const params = new URLSearchParams();
  if (query.status && query.status.length > 0) params.set("status", query.status.join(","));
  for (const key of ["form", "user", "runner", "from", "to", "sort", "cursor"] as const) {
    const value = query[key];
    if (value) params.set(key, value);
  }
  if (query.limit !== undefined) params.set("limit", String(query.limit));
  return params.toString();
}

/**
 * One page of the job list (newest first unless `sort` says otherwise), refreshed every few
 * seconds while the tab is visible: the first page shows new jobs as they come, a later page
 * (a cursor) keeps its rows and refreshes their status.
 */
export function useJobs(query: JobListQuery = {}) {
  const normalized: JobListQuery = { ...query, limit: query.limit ?? 50 };
  return useQuery({
    queryKey: queryKeys.jobList(normalized),
    queryFn: ({ signal }) => apiFetch<JobPage>(`/api/jobs?${jobListSearch(normalized)}`, { signal }),
    refetchInterval: JOB_LIST_REFRESH_MS,
    // Changing the filter or the page keeps the old rows on screen until the new ones are in.
    placeholderData: keepPreviousData,
  });
}
