import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { AuditPage } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** One page of the audit trail (admins), newest first; `search` is the API's query string. */
export function useAudit(search: string) {
  return useQuery({
    queryKey: queryKeys.audit(search),
    queryFn: ({ signal }) => apiFetch<AuditPage>(`/api/audit?${search}`, { signal }),
    placeholderData: keepPreviousData,
  });
}
