/**
 * A job reached an event its form notifies of (form.yaml `notify`): one delivery per channel and
 * target is enqueued, once, whichever node saw the job's move (the deliveries' unique key). The
 * job lifecycle calls this after a move it won; server/jobs/notify-delivery.ts sends them.
 */
import { getJobKind, getJobView, RUN_KIND, type JobStatus } from "../data/jobs";
import { enqueueDeliveries } from "../data/notifications";
import { NOTIFY_EVENTS, notifyTargets, type NotifyEvent } from "../forms/notify";
import { loggerFor } from "../logging/logger";
import { findForm } from "../forms/catalog";

const log = loggerFor({ component: "notifications" });

/** The event a move to `status` is, if notifications know it. */
export function notifyEventOf(status: JobStatus): NotifyEvent | null {
  return (NOTIFY_EVENTS as readonly string[]).includes(status) ? (status as NotifyEvent) : null;
}

/** Enqueues the deliveries of `event` for the job, as its form says now. Never throws: a job's move does not fail for its notifications. */
export async function enqueueJobNotifications(jobId: number, event: NotifyEvent): Promise<void> {
  try {
    const [job, kind] = await Promise.all([getJobView(jobId), getJobKind(jobId)]);
    // A preview lists the playbook's tasks; nobody is told of it.
    if (!job || kind !== RUN_KIND) return;
    const form = await findForm(job.form);
    const targets = form ? notifyTargets(form.definition.notify, event) : [];
    if (targets.length === 0) return;
    const stored = await enqueueDeliveries({ id: job.id, formName: job.form }, event, targets);
    if (stored > 0) log().info({ jobId }, `job ${jobId} ${event}: ${stored} notification(s) enqueued`);
  } catch (error) {
    log().error({ jobId, err: error }, `job ${jobId} ${event}: enqueuing its notifications failed`);
  }
}
