import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { RunReport } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/**
 * Where the report over runs `jobs` of a form is (ids, or the `jobs` parameter as a page got
 * it: the API's 400 then says what is wrong with it), as JSON or as a document to download.
 */
export function formReportUrl(name: string, jobs: readonly number[] | string, format?: "md" | "csv" | "json"): string {
  const list = typeof jobs === "string" ? encodeURIComponent(jobs).replaceAll("%2C", ",") : jobs.join(",");
  return `/api/forms/${encodeURIComponent(name)}/report?jobs=${list}${format ? `&format=${format}` : ""}`;
}

/** 2 to 20 finished runs of a form side by side: tasks, hosts, artifacts (finished runs do not change: no refetch). */
export function useFormReport(name: string, jobs: readonly number[] | string) {
  return useQuery({
    queryKey: queryKeys.formReport(name, typeof jobs === "string" ? jobs : jobs.join(",")),
    queryFn: ({ signal }) => apiFetch<RunReport>(formReportUrl(name, jobs), { signal }),
    staleTime: Infinity,
    retry: false,
  });
}
