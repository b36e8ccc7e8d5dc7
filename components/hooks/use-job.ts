import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import { isFinalStatus, type Job, type JobPermissions } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/**
 * Fallback poll while the job is live. job:status on the socket normally updates the cache
 * first; the poll only matters when the socket is down, so it can be slow.
 */
const LIVE_JOB_POLL_MS = 5000;

/**
 * `initialData`: the job as the server page read it, so the page shows it at once instead of
 * "Loading job…" until its first fetch (refreshed in the background right after).
 * `enabled: false`: no query (a page that may not need the job).
 */
export function useJob(id: number, { enabled = true, initialData }: { enabled?: boolean; initialData?: Job } = {}) {
  return useQuery({
    enabled,
    initialData,
    queryKey: queryKeys.job(id),
    queryFn: async ({ signal }) => (await apiFetch<{ job: Job }>(`/api/jobs/${id}`, { signal })).job,
    refetchInterval: (query) => {
      const job = query.state.data;
      return job && isFinalStatus(job.status) ? false : LIVE_JOB_POLL_MS;
    },
  });
}

/** What the user may do with the job (approve, abort): decided by the server from the form's access groups. */
export function useJobPermissions(id: number, initialData?: JobPermissions) {
  return useQuery({
    initialData,
    queryKey: queryKeys.jobPermissions(id),
    queryFn: async ({ signal }) => (await apiFetch<{ permissions: JobPermissions }>(`/api/jobs/${id}`, { signal })).permissions,
    staleTime: 60_000,
  });
}
