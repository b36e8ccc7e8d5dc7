/**
 * A form's notifications (form.yaml `notify`, docs/forms.md "Notifications"): on which events of
 * its jobs to call a webhook or send an email. Delivering them is server/jobs/notify-delivery.ts.
 */
import { z } from "zod";
import { credentialNameSchema } from "../credentials/kinds";

/**
 * A job's end (success, failed, abandoned), its wait for an approver (approval), or a drift
 * check that found hosts newly drifted (drift, server/recap/drift.ts).
 */
export const NOTIFY_EVENTS = ["success", "failed", "abandoned", "approval", "drift"] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];
export const NOTIFY_CHANNELS = ["webhook", "email"] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

const webhookSchema = z
  .object({
    url: z
      .url({ error: "must be an http or https URL" })
      .refine((url) => !URL.canParse(url) || /^https?:$/.test(new URL(url).protocol), "must be an http or https URL"),
    /** A stored credential of kind secret: its one variable, or the one named `secret`, signs the body. */
    secret: credentialNameSchema.optional(),
  })
  .strict();

export const notifySchema = z
  .object({
    on: z.array(z.enum(NOTIFY_EVENTS)).min(1, "needs at least one event"),
    webhook: webhookSchema.optional(),
    email: z
      .array(z.email({ error: "must be an email address" }))
      .min(1)
      .optional(),
  })
  .strict()
  .refine((entry) => entry.webhook !== undefined || entry.email !== undefined, "needs a webhook or an email list");
export type NotifySpec = z.infer<typeof notifySchema>;

/** Who gets told of `event`: one target per channel and address, each once. */
export function notifyTargets(specs: readonly NotifySpec[], event: NotifyEvent): { channel: NotifyChannel; target: string }[] {
  const targets = new Map<string, { channel: NotifyChannel; target: string }>();
  for (const spec of specs) {
    if (!spec.on.includes(event)) continue;
    const add = (key: string, target: { channel: NotifyChannel; target: string }) => void (targets.has(key) || targets.set(key, target));
    if (spec.webhook) add(`webhook ${spec.webhook.url}`, { channel: "webhook", target: spec.webhook.url });
    for (const address of spec.email ?? []) add(`email ${address.toLowerCase()}`, { channel: "email", target: address });
  }
  return [...targets.values()];
}

/** The credential that signs a webhook's body for `event` (the form's first entry naming this URL for it). */
export function webhookSecretName(specs: readonly NotifySpec[], event: NotifyEvent, url: string): { found: boolean; secret?: string } {
  const spec = specs.find((s) => s.on.includes(event) && s.webhook?.url === url);
  return spec ? { found: true, secret: spec.webhook!.secret } : { found: false };
}
