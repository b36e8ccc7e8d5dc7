/**
 * Notification deliveries (server/jobs/notify.ts enqueues them, server/jobs/notify-delivery.ts
 * sends them): one row per job, event, channel and target, so an event is enqueued once however
 * many app nodes see it, and each row is the delivery log of its attempts.
 */
import { getDb } from "./db";
import { isUniqueViolation } from "./unique";
import type { NotifyChannel, NotifyEvent } from "../forms/notify";

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryView {
  id: number;
  jobId: number;
  form: string;
  event: NotifyEvent;
  channel: NotifyChannel;
  /** The email address, or the webhook's URL without its query and user info (they may hold tokens). */
  target: string;
  status: DeliveryStatus;
  attempts: number;
  /** When the next attempt is due (pending deliveries only). */
  nextAttemptAt: string | null;
  lastError: string | null;
  /** The webhook's last HTTP status. */
  responseStatus: number | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** A delivery as the sender needs it: its full target. */
export interface DeliveryRow {
  id: number;
  jobId: number;
  formName: string;
  event: string;
  channel: string;
  target: string;
  attempts: number;
  nextAttemptAt: Date;
}

type Row = DeliveryRow & {
  status: string;
  lastError: string | null;
  responseStatus: number | null;
  createdAt: Date;
  deliveredAt: Date | null;
};

/** A URL as shown in the delivery log: scheme, host, port and path; `?…` when it had a query. */
export function displayTarget(channel: string, target: string): string {
  if (channel !== "webhook" || !URL.canParse(target)) return target;
  const url = new URL(target);
  return `${url.protocol}//${url.host}${url.pathname}${url.search ? "?…" : ""}`;
}

function toView(row: Row): DeliveryView {
  return {
    id: row.id,
    jobId: row.jobId,
    form: row.formName,
    event: row.event as NotifyEvent,
    channel: row.channel as NotifyChannel,
    target: displayTarget(row.channel, row.target),
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    lastError: row.lastError,
    responseStatus: row.responseStatus,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  };
}

/**
 * Enqueues a job's deliveries for one event, each due now. A delivery already stored (another
 * node saw the same transition) is left as it is. Returns how many this call stored.
 */
export async function enqueueDeliveries(
  job: { id: number; formName: string },
  event: NotifyEvent,
  targets: readonly { channel: NotifyChannel; target: string }[],
): Promise<number> {
  let stored = 0;
  for (const { channel, target } of targets) {
    try {
      await getDb().notificationDelivery.create({ data: { jobId: job.id, formName: job.formName, event, channel, target } });
      stored += 1;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  return stored;
}

/**
 * Runs of a form that moved to a notified status in [since, until] (a final status by its
 * finishedAt, approval by its createdAt) and have fewer deliveries of that event stored than
 * the form has targets for it (`targets`: event -> count): what a node that died between a
 * job's move and its enqueue left out.
 */
export async function listJobsMissingDeliveries(
  formName: string,
  targets: ReadonlyMap<NotifyEvent, number>,
  since: Date,
  until: Date,
  limit: number,
): Promise<{ jobId: number; event: NotifyEvent }[]> {
  // A drift is not a status: its notification is enqueued right after the check's hosts are
  // written (server/jobs/hosts.ts). A node stopped between the two loses it; the drift itself
  // is stored and shown.
  const finals = [...targets.keys()].filter((event): event is "success" | "failed" | "abandoned" => event !== "approval" && event !== "drift");
  const moved = [
    ...(finals.length > 0 ? [{ status: { in: finals }, finishedAt: { gte: since, lte: until } }] : []),
    ...(targets.has("approval") ? [{ status: "approval" as const, createdAt: { gte: since, lte: until } }] : []),
  ];
  if (moved.length === 0) return [];
  const jobs = await getDb().job.findMany({
    where: { kind: "run", formName, OR: moved },
    orderBy: { id: "asc" },
    take: limit,
    select: { id: true, status: true },
  });
  if (jobs.length === 0) return [];
  const stored = await getDb().notificationDelivery.groupBy({
    by: ["jobId", "event"],
    where: { jobId: { in: jobs.map((job) => job.id) } },
    _count: { _all: true },
  });
  const count = new Map(stored.map((row) => [`${row.jobId}:${row.event}`, row._count._all]));
  return jobs
    .map((job) => ({ jobId: job.id, event: job.status as NotifyEvent }))
    .filter(({ jobId, event }) => (count.get(`${jobId}:${event}`) ?? 0) < (targets.get(event) ?? 0));
}

const senderSelect = {
  id: true,
  jobId: true,
  formName: true,
  event: true,
  channel: true,
  target: true,
  attempts: true,
  nextAttemptAt: true,
} as const;

/** Pending deliveries due by `now`, oldest due first. */
export async function listDueDeliveries(now: Date, limit: number): Promise<DeliveryRow[]> {
  return getDb().notificationDelivery.findMany({
    where: { status: "pending", nextAttemptAt: { lte: now } },
    orderBy: { nextAttemptAt: "asc" },
    take: limit,
    select: senderSelect,
  });
}

/**
 * Takes a due delivery for one attempt: moves its nextAttemptAt to `leaseUntil` if it is still
 * pending and still due at the time it was read as. Of two nodes reading the same row, exactly
 * one gets it; a node that dies mid-attempt leaves it due again at `leaseUntil`.
 */
export async function claimDelivery(row: DeliveryRow, leaseUntil: Date): Promise<boolean> {
  const result = await getDb().notificationDelivery.updateMany({
    where: { id: row.id, status: "pending", nextAttemptAt: row.nextAttemptAt },
    data: { nextAttemptAt: leaseUntil },
  });
  return result.count > 0;
}

/** The outcome of an attempt on a claimed delivery (still under `lease`): delivered, retried at `retryAt`, or failed for good. */
export async function recordAttempt(
  row: DeliveryRow,
  lease: Date,
  outcome: { delivered: boolean; responseStatus: number | null; error: string | null; retryAt: Date | null; at: Date },
): Promise<void> {
  await getDb().notificationDelivery.updateMany({
    where: { id: row.id, status: "pending", nextAttemptAt: lease },
    data: {
      attempts: row.attempts + 1,
      responseStatus: outcome.responseStatus,
      lastError: outcome.error,
      ...(outcome.delivered
        ? { status: "delivered", deliveredAt: outcome.at }
        : outcome.retryAt
          ? { nextAttemptAt: outcome.retryAt }
          : { status: "failed" }),
    },
  });
}

/** A job's deliveries, in the order they were enqueued. */
export async function listJobDeliveries(jobId: number): Promise<DeliveryView[]> {
  const rows = await getDb().notificationDelivery.findMany({ where: { jobId }, orderBy: { id: "asc" } });
  return rows.map(toView);
}

/** The most recent deliveries (of one status, when given), newest first. */
export async function listRecentDeliveries(query: { status?: DeliveryStatus; limit: number }): Promise<DeliveryView[]> {
  const rows = await getDb().notificationDelivery.findMany({
    where: query.status ? { status: query.status } : {},
    orderBy: { id: "desc" },
    take: query.limit,
  });
  return rows.map(toView);
}
