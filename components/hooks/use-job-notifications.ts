import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { DeliveryView } from "@/server/data/notifications";
import { queryKeys } from "./query-keys";

export type NotificationDelivery = DeliveryView;

/**
 * A job's notification deliveries (form.yaml `notify`). Read again every few seconds while one
 * is pending or the job may still reach an event; a finished job's settled log is read once.
 */
export function useJobNotifications(id: number, settled: boolean) {
  return useQuery({
    queryKey: queryKeys.jobNotifications(id),
    queryFn: async ({ signal }) => (await apiFetch<{ deliveries: DeliveryView[] }>(`/api/jobs/${id}/notifications`, { signal })).deliveries,
    refetchInterval: (query) => (!settled || query.state.data?.some((d) => d.status === "pending") ? 5000 : false),
  });
}
