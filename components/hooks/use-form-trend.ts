import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { FormTrend } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** The last `last` finished runs of a form, oldest first: durations, never-idempotent tasks, host failure rates. */
export function useFormTrend(name: string, last = 10) {
  return useQuery({
    queryKey: queryKeys.formTrend(name, last),
    queryFn: ({ signal }) => apiFetch<FormTrend>(`/api/forms/${encodeURIComponent(name)}/trend?last=${last}`, { signal }),
  });
}
