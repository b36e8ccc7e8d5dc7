import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Runner } from "@/components/api/types";
import { queryKeys } from "./query-keys";

export const RUNNERS_REFRESH_MS = 3000;

/**
 * Every runner (admins only), refreshed every few seconds: join requests, connections and
 * heartbeats change without anything happening in this tab.
 */
export function useRunners() {
  return useQuery({
    queryKey: queryKeys.runners(),
    queryFn: async ({ signal }) => (await apiFetch<{ runners: Runner[] }>("/api/runners", { signal })).runners,
    refetchInterval: RUNNERS_REFRESH_MS,
  });
}
