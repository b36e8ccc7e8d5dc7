import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { HostDetailDrift, HostRunView, HostSummary } from "@/components/api/types";
import { queryKeys } from "./query-keys";

export interface HostListPage {
  hosts: HostSummary[];
  nextCursor: string | null;
}

export interface HostDetailPage {
  host: Omit<HostSummary, "drift"> & { drift: HostDetailDrift | null };
  runs: HostRunView[];
  nextCursor: string | null;
}

const PAGE = 50;

function query(params: Record<string, string | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  return search.toString();
}

/** The hosts of the runs the reader may see, by name, `q` a part of the name; pages follow with fetchNextPage. */
export function useHosts(q: string) {
  return useInfiniteQuery({
    queryKey: queryKeys.hosts(q),
    queryFn: ({ pageParam, signal }) =>
      apiFetch<HostListPage>(`/api/hosts?${query({ q, cursor: pageParam, limit: String(PAGE) })}`, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    placeholderData: keepPreviousData,
  });
}

/** A host and its runs newest first; older runs follow with fetchNextPage. */
export function useHost(name: string) {
  return useInfiniteQuery({
    queryKey: queryKeys.host(name),
    queryFn: ({ pageParam, signal }) =>
      apiFetch<HostDetailPage>(`/api/hosts/${encodeURIComponent(name)}?${query({ cursor: pageParam, limit: String(PAGE) })}`, {
        signal,
      }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    retry: false,
  });
}
