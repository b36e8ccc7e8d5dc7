import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Source, SourceSyncResult } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** Every Git source (admins only), polled while one of them syncs so its status moves on by itself. */
export function useSources() {
  return useQuery({
    queryKey: queryKeys.sources(),
    queryFn: async ({ signal }) => (await apiFetch<{ sources: Source[] }>("/api/sources", { signal })).sources,
    refetchInterval: (query) => (query.state.data?.some((s) => s.syncStatus === "running") ? 2000 : false),
  });
}

export interface NewSource {
  name: string;
  url: string;
  ref?: string;
  credential?: string;
  formsPath?: string;
  /** Text only when it does not read as a number: the API answers which field is wrong. */
  syncIntervalMinutes?: number | string;
  webhook?: boolean;
}

/** Registers a source; answers the webhook secret once when one was asked for. */
export function useCreateSource() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (source: NewSource) =>
      apiFetch<{ source: Source; webhookSecret?: string }>("/api/sources", { method: "POST", body: source }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.sources() }),
  });
}

export interface SourceChange {
  url?: string;
  ref?: string | null;
  credential?: string | null;
  formsPath?: string;
  syncIntervalMinutes?: number | string | null;
  webhook?: boolean;
}

/** Changes a source (its next sync takes it into account); answers a new webhook secret once when one was asked for. */
export function useUpdateSource(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: SourceChange) =>
      apiFetch<{ source: Source; webhookSecret?: string }>(`/api/sources/${encodeURIComponent(name)}`, { method: "PATCH", body: change }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.sources() }),
  });
}

/** Sync now: resolves once the sync ended, with what it imported and refused. */
export function useSyncSource() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiFetch<SourceSyncResult>(`/api/sources/${encodeURIComponent(name)}/sync`, { method: "POST" }),
    // The list shows "running" (and polls) while the sync lasts.
    onMutate: () => queryClient.invalidateQueries({ queryKey: queryKeys.sources() }),
    // The forms list changes too.
    onSettled: () => queryClient.invalidateQueries(),
  });
}

/** Deletes a source (and its forms no job ran). */
export function useDeleteSource() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiFetch(`/api/sources/${encodeURIComponent(name)}`, { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries(),
  });
}
