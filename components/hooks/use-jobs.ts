import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Job } from "@/components/api/types";
import { queryKeys } from "./query-keys";

export const JOB_LIST_REFRESH_MS = 3000;

/** The job list, newest first, refreshed every few seconds while the tab is visible. */
export function useJobs(filter: { form?: string; limit?: number } = {}) {
  const normalized = { form: filter.form, limit: filter.limit ?? 50 };
  return useQuery({
    queryKey: queryKeys.jobList(normalized),
    queryFn: async ({ signal }) => {
      const params = new URLSearchParams({ limit: String(normalized.limit) });
      if (normalized.form) params.set("form", normalized.form);
      return (await apiFetch<{ jobs: Job[] }>(`/api/jobs?${params.toString()}`, { signal })).jobs;
    },
    refetchInterval: JOB_LIST_REFRESH_MS,
    // Changing the filter keeps the old rows on screen until the new ones are in.
    placeholderData: keepPreviousData,
  });
}
