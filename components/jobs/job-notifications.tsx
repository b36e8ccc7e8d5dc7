"use client";

import { isFinalStatus, type JobStatus } from "@/components/api/types";
import { useJobNotifications, type NotificationDelivery } from "@/components/hooks/use-job-notifications";
import { Panel } from "@/components/ui/panel";
import { cx } from "@/components/ui/cx";
import { formatDateTime } from "@/components/ui/format";

const STATUS_STYLE: Record<NotificationDelivery["status"], string> = {
  pending: "bg-zinc-100 text-zinc-700 ring-zinc-200",
  delivered: "bg-green-50 text-green-700 ring-green-200",
  failed: "bg-red-50 text-red-700 ring-red-200",
};

function outcome(delivery: NotificationDelivery): string {
  if (delivery.status === "delivered") return `delivered ${formatDateTime(delivery.deliveredAt)}`;
  const last = delivery.lastError ? `last error: ${delivery.lastError}` : "";
  if (delivery.status === "failed") return last;
  const next = delivery.nextAttemptAt ? `next attempt ${formatDateTime(delivery.nextAttemptAt)}` : "";
  return [last, next].filter(Boolean).join("; ");
}

/** The webhooks and emails the job's form sends on its events (form.yaml `notify`); nothing when it sends none. */
export function JobNotifications({ jobId, status }: { jobId: number; status: JobStatus }) {
  const deliveries = useJobNotifications(jobId, isFinalStatus(status)).data;
  if (!deliveries || deliveries.length === 0) return null;
  return (
    <Panel title="Notifications" bodyClassName="p-0" data-testid="job-notifications">
      <table className="w-full text-sm">
        <thead className="text-left text-xs text-zinc-500">
          <tr>
            <th className="px-4 py-2 font-medium">Event</th>
            <th className="px-4 py-2 font-medium">To</th>
            <th className="px-4 py-2 font-medium">Status</th>
            <th className="px-4 py-2 font-medium">Attempts</th>
            <th className="px-4 py-2 font-medium">Outcome</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {deliveries.map((delivery) => (
            <tr key={delivery.id} data-testid="notification-row" data-status={delivery.status}>
              <td className="px-4 py-2">{delivery.event}</td>
              <td className="px-4 py-2 break-all">
                <span className="text-zinc-500">{delivery.channel === "webhook" ? "webhook " : "email "}</span>
                {delivery.target}
              </td>
              <td className="px-4 py-2">
                <span className={cx("rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ring-inset", STATUS_STYLE[delivery.status])}>
                  {delivery.status}
                </span>
              </td>
              <td className="px-4 py-2 tabular-nums">
                {delivery.attempts}
                {delivery.responseStatus !== null && <span className="text-zinc-500"> (HTTP {delivery.responseStatus})</span>}
              </td>
              <td className="px-4 py-2 text-zinc-600">{outcome(delivery)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
