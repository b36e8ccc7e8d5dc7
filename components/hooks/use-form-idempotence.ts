import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { FormIdempotence } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** Where the idempotence report of a form is, as JSON or as a file to download. */
export function formIdempotenceUrl(name: string, last: number, format?: "csv" | "json"): string {
  return `/api/forms/${encodeURIComponent(name)}/idempotence?last=${last}${format ? `&format=${format}` : ""}`;
}

/** Over the last `last` finished runs of a form: per task, how often it changed, on which hosts. */
export function useFormIdempotence(name: string, last = 20) {
  return useQuery({
    queryKey: queryKeys.formIdempotence(name, last),
    queryFn: ({ signal }) => apiFetch<FormIdempotence>(formIdempotenceUrl(name, last), { signal }),
  });
}
