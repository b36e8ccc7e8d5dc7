/** Contracts of the notifications' delivery log (docs/api.md, "Notifications"; server/api/contract.ts). */
import { z } from "zod";
import { DELIVERY_STATUSES } from "../../data/notifications";
import { NOTIFY_CHANNELS, NOTIFY_EVENTS } from "../../forms/notify";
import { endpoint } from "../contract";
import { queryInt } from "../route";

export const NOTIFICATIONS_DEFAULT_LIMIT = 100;

export const deliverySchema = z
  .object({
    id: z.number().int(),
    jobId: z.number().int(),
    form: z.string(),
    event: z.enum(NOTIFY_EVENTS),
    channel: z.enum(NOTIFY_CHANNELS),
    target: z.string().meta({ description: "the email address, or the webhook's URL without user info and query (`?…` when it had one)" }),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    nextAttemptAt: z.string().nullable().meta({ description: "when the next attempt is due (pending only)" }),
    lastError: z.string().nullable(),
    responseStatus: z.number().int().nullable().meta({ description: "the webhook's last HTTP status" }),
    createdAt: z.string(),
    deliveredAt: z.string().nullable(),
  })
  .meta({ id: "NotificationDelivery" });

const deliveriesAnswer = z.object({ deliveries: z.array(deliverySchema) });

export const notificationsQuerySchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: queryInt(1, 500)
    .optional()
    .meta({ description: `at most this many (default ${NOTIFICATIONS_DEFAULT_LIMIT})` }),
});

export const jobNotifications = endpoint({
  method: "get",
  path: "/api/jobs/[id]/notifications",
  summary: "The job's notification deliveries (webhooks, emails) and their attempts",
  tags: ["jobs"],
  access: "user",
  params: z.object({ id: z.string().meta({ description: "a job id" }) }),
  responses: { 200: { description: "in the order they were enqueued", schema: deliveriesAnswer } },
});

export const recentNotifications = endpoint({
  method: "get",
  path: "/api/notifications",
  summary: "The most recent notification deliveries of every job, newest first",
  tags: ["jobs"],
  access: "admin",
  query: notificationsQuerySchema,
  responses: { 200: { description: "newest first", schema: deliveriesAnswer } },
});
