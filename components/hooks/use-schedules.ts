import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Schedule } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** The caller's schedules (admins: everyone's); refreshed now and then so next runs and last jobs move on. */
export function useSchedules() {
  return useQuery({
    queryKey: queryKeys.schedules(),
    queryFn: async ({ signal }) => (await apiFetch<{ schedules: Schedule[] }>("/api/schedules", { signal })).schedules,
    refetchInterval: 15_000,
  });
}

export interface NewScheduleRequest {
  form: string;
  values: Record<string, unknown>;
  options?: Record<string, unknown>;
  cron: string;
  timezone: string;
  overlap: "skip" | "queue";
  /** "drift": each tick is a drift check (--check --diff) that marks the hosts it finds changes on. */
  mode: "run" | "drift";
}

export type ScheduleChange = { kind: "enable"; id: number; enabled: boolean } | { kind: "delete"; id: number };

/** Save a new schedule (POST /api/schedules). */
export function useCreateSchedule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: NewScheduleRequest) => apiFetch<Schedule>("/api/schedules", { method: "POST", body: request }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.schedules() }),
  });
}

/** Enable, pause or delete a schedule; the list is reloaded afterwards. */
export function useScheduleChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (change: ScheduleChange) => {
      if (change.kind === "enable") await apiFetch(`/api/schedules/${change.id}`, { method: "PATCH", body: { enabled: change.enabled } });
      else await apiFetch(`/api/schedules/${change.id}`, { method: "DELETE" });
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.schedules() }),
  });
}

/** Change when and how a schedule runs (PATCH /api/schedules/ID with cron, time zone, overlap, mode); the list is reloaded afterwards. */
export function useUpdateScheduleTiming(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (timing: Pick<NewScheduleRequest, "cron" | "timezone" | "overlap" | "mode">) =>
      apiFetch<{ schedule: Schedule }>(`/api/schedules/${id}`, { method: "PATCH", body: timing }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.schedules() }),
  });
}
