import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { FormValue, RunOptions } from "@/components/api/types";
import { queryKeys } from "./query-keys";

export interface LaunchRequest {
  form: string;
  values: Record<string, FormValue | null>;
  options?: RunOptions;
  /** Run again: POST /api/jobs/ID/relaunch, so the new job links back to job ID. */
  relaunchOf?: number;
  /** The form's choice among its runners (`runners:` in form.yaml). */
  runner?: string;
  /**
   * One per launch attempt (the Idempotency-Key header of POST /api/jobs): a request sent twice
   * (a double click, a retry after a lost answer) answers the job the first one started.
   */
  idempotencyKey: string;
}

export function useLaunchJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ relaunchOf, idempotencyKey, ...request }: LaunchRequest) =>
      relaunchOf === undefined
        ? apiFetch<{ id: number }>("/api/jobs", { method: "POST", body: request, headers: { "Idempotency-Key": idempotencyKey } })
        : apiFetch<{ id: number }>(`/api/jobs/${relaunchOf}/relaunch`, {
            method: "POST",
            body: { values: request.values, options: request.options },
          }),
    // Not awaited: a returned promise would hold the caller's onSuccess (the form's move to the
    // new job's page) until the job lists were fetched again, 0.1-0.5 s of "Launching…".
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.jobLists() });
    },
  });
}
