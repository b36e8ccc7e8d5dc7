import type { JobArtifacts } from "@/components/api/types";
import { queryKeys } from "./query-keys";
import { useFinishedJobQuery } from "./use-finished-job-query";

/** What a finished job's playbook handed back with set_stats (GET /api/jobs/ID/artifacts). */
export function useJobArtifacts(id: number, enabled: boolean) {
  return useFinishedJobQuery<JobArtifacts>(queryKeys.jobArtifacts(id), `/api/jobs/${id}/artifacts`, enabled, {
    statuses: [404],
    lateTries: 3,
  });
}
