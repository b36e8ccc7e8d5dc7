/**
 * A job reached an event its form notifies of (form.yaml `notify`): one delivery per channel and
 * target is enqueued, once, whichever node saw the job's move (the deliveries' unique key). The
 * job lifecycle calls this after a move it won; server/jobs/notify-delivery.ts sends them.
 * `enqueueMissedNotifications` catches up on moves whose enqueue never ran (the node died).
 */
import { getJobKind, getJobView, RUN_KIND, type JobStatus } from "../data/jobs";
import { enqueueDeliveries, listJobsMissingDeliveries } from "../data/notifications";
import { NOTIFY_EVENTS, notifyTargets, type NotifyEvent } from "../forms/notify";
import { loggerFor } from "../logging/logger";
import { findForm, listForms } from "../forms/catalog";

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

/** How long after a job's move the catch-up looks for deliveries that were never enqueued. */
export const CATCH_UP_WINDOW_MS = 15 * 60 * 1000;
/** The enqueue after a move normally takes milliseconds: the catch-up leaves moves this recent alone. */
export const CATCH_UP_GRACE_MS = 30 * 1000;
const CATCH_UP_JOBS = 500;

/**
 * Enqueues what a move's own enqueue left out: a node that stopped (crashed, killed) between a
 * job's status change and `enqueueJobNotifications` would otherwise lose those notifications.
 * Every node runs it now and then (NotificationSender); the deliveries' unique key makes a
 * double enqueue harmless. Looks at moves between CATCH_UP_WINDOW_MS and CATCH_UP_GRACE_MS ago,
 * under the form's notify settings of now. Returns how many (job, event) pairs it enqueued.
 */
export async function enqueueMissedNotifications(now: Date = new Date()): Promise<number> {
  const since = new Date(now.getTime() - CATCH_UP_WINDOW_MS);
  const until = new Date(now.getTime() - CATCH_UP_GRACE_MS);
  let enqueued = 0;
  for (const form of await listForms()) {
    const targets = new Map<NotifyEvent, number>();
    for (const event of NOTIFY_EVENTS) {
      const count = notifyTargets(form.definition.notify, event).length;
      if (count > 0) targets.set(event, count);
    }
    if (targets.size === 0) continue;
    for (const { jobId, event } of await listJobsMissingDeliveries(form.name, targets, since, until, CATCH_UP_JOBS)) {
      log().warn({ jobId }, `job ${jobId} ${event}: its notifications were not enqueued when it moved; enqueuing them now`);
      await enqueueJobNotifications(jobId, event);
      enqueued += 1;
    }
  }
  return enqueued;
}
