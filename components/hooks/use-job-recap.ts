import type { Recap } from "@/components/api/types";
import { queryKeys } from "./query-keys";
import { useFinishedJobQuery } from "./use-finished-job-query";

/**
 * The PLAY RECAP of a finished job. The recap may be written a moment after the final status
 * arrives, so a 404/409 is retried a few times before giving up.
 */
export function useJobRecap(id: number, enabled: boolean) {
  return useFinishedJobQuery<Recap>(queryKeys.jobRecap(id), `/api/jobs/${id}/recap`, enabled, { statuses: [404, 409], lateTries: 5 });
}
