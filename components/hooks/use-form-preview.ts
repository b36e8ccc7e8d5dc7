import { useMutation, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { FormValue, RunOptions } from "@/components/api/types";
import type { PreviewPlan } from "@/server/jobs/preview";
import { queryKeys } from "./query-keys";

export type { PreviewPlan };
export type { PlanPlay, PlanTask } from "@/server/recap/plan";

export interface PreviewRequest {
  values: Record<string, FormValue>;
  options?: RunOptions;
}

/** Starts a preview of the form (POST /api/forms/NAME/preview): the new preview job's id. */
export function useStartPreview(form: string) {
  return useMutation({
    mutationFn: (request: PreviewRequest) =>
      apiFetch<{ id: number }>(`/api/forms/${encodeURIComponent(form)}/preview`, { method: "POST", body: request }),
  });
}

/** A preview's status and plan (GET /api/forms/NAME/preview/ID), polled every second until it is done. */
export function usePreviewPlan(form: string, id: number | null) {
  return useQuery({
    queryKey: queryKeys.formPreview(form, id ?? 0),
    queryFn: ({ signal }) => apiFetch<PreviewPlan>(`/api/forms/${encodeURIComponent(form)}/preview/${id}`, { signal }),
    enabled: id !== null,
    refetchInterval: (query) => (query.state.data?.done ? false : 1000),
  });
}
