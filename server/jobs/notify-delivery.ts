/**
 * Sends the notification deliveries (server/jobs/notify.ts enqueues them): every node runs a
 * pass every few seconds (server/index.ts). A pass takes each due delivery with a conditional
 * update (claimDelivery: of two nodes, one gets it), makes one attempt and records it: delivered,
 * due again after the next delay of the backoff, or failed once the delays are used up.
 *
 * Webhook: POST of the JSON body (server/jobs/notify-message.ts), signed when the form names a
 * secret, 10 s to answer, a 2xx delivers, redirects are not followed. Email: through the SMTP
 * server of PLAYFORM_SMTP_URL (nodemailer). No secret (the webhook's key, the SMTP password, a
 * URL's query) reaches a delivery's lastError or the log.
 */
import nodemailer, { type Transporter } from "nodemailer";
import { webhookSecret } from "../credentials/resolve";
import { getJobView } from "../data/jobs";
import { claimDelivery, displayTarget, listDueDeliveries, recordAttempt, type DeliveryRow } from "../data/notifications";
import { findForm } from "../forms/catalog";
import { webhookSecretName, type NotifyEvent } from "../forms/notify";
import { loggerFor, maskInLogs } from "../logging/logger";
import type { Recap } from "../recap/types";
import {
  emailSubject,
  emailText,
  nextAttemptAt,
  notificationArtifacts,
  notificationBody,
  signature,
  type NotificationBody,
} from "./notify-message";
import { enqueueMissedNotifications } from "./notify";
import { cachedJobRecap } from "./recap-cache";
import { knownArtifacts } from "./artifacts";

const log = loggerFor({ component: "notifications" });

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const NO_SMTP = "no SMTP server configured (PLAYFORM_SMTP_URL)";
/** How long a claimed delivery is this node's: longer than any attempt takes (SMTP timeouts below). */
const LEASE_MS = 2 * 60 * 1000;
/** Deliveries one pass takes at most. */
const BATCH = 20;

export interface NotifySettings {
  /** Where browsers reach Playform: the jobs' links. */
  publicUrl: string;
  smtpUrl?: string;
  smtpFrom?: string;
  backoffSeconds: readonly number[];
}

interface Outcome {
  delivered: boolean;
  responseStatus: number | null;
  error: string | null;
  /** No point trying again (the job or the form's entry is gone). */
  final?: boolean;
}

/** An error's message with every known secret value cut out. */
function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 3) out = out.split(secret).join("***");
  return out.slice(0, 500);
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** POSTs the body to the URL, signed with the secret when there is one. */
export async function postWebhook(url: string, body: NotificationBody, deliveryId: number, secret: string | undefined): Promise<Outcome> {
  const raw = JSON.stringify(body);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "Playform",
    "x-playform-event": body.event,
    "x-playform-delivery": String(deliveryId),
  };
  if (secret) headers["x-playform-signature"] = signature(raw, secret);
  try {
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: raw,
      redirect: "manual",
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { delivered: true, responseStatus: response.status, error: null };
    const redirect = response.status >= 300 && response.status < 400 ? ": redirects are not followed" : "";
    return { delivered: false, responseStatus: response.status, error: `HTTP ${response.status}${redirect}` };
  } catch (error) {
    const query = URL.canParse(url) ? new URL(url).search : "";
    return { delivered: false, responseStatus: null, error: scrub(describeFetchError(error), [secret, query, url]) };
  }
}

export class NotificationSender {
  private timer: NodeJS.Timeout | null = null;
  private catchUpTimer: NodeJS.Timeout | null = null;
  private running = false;
  private transport: Transporter | null = null;
  private readonly smtpPassword: string | undefined;

  constructor(private readonly settings: NotifySettings) {
    this.smtpPassword = settings.smtpUrl ? decodeURIComponent(new URL(settings.smtpUrl).password) || undefined : undefined;
    maskInLogs([this.smtpPassword]);
  }

  start(intervalMs = 2000, catchUpMs = 60_000): void {
    this.timer = setInterval(() => void this.pass(), intervalMs);
    this.timer.unref();
    // What a node that died between a job's move and its enqueue left out (server/jobs/notify.ts).
    this.catchUpTimer = setInterval(
      () =>
        void enqueueMissedNotifications().catch((error: unknown) =>
          log().error({ err: error }, "looking for notifications never enqueued failed"),
        ),
      catchUpMs,
    );
    this.catchUpTimer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.catchUpTimer) clearInterval(this.catchUpTimer);
    this.timer = null;
    this.catchUpTimer = null;
    this.transport?.close();
  }

  /** One pass: every due delivery this node gets, one attempt each. Returns how many it attempted. */
  async pass(now: Date = new Date()): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let attempted = 0;
    try {
      for (const row of await listDueDeliveries(now, BATCH)) {
        const lease = new Date(Date.now() + LEASE_MS);
        if (!(await claimDelivery(row, lease))) continue;
        attempted += 1;
        const outcome = await this.attempt(row).catch((error: unknown): Outcome => {
          log().error({ err: error, deliveryId: row.id }, `notification ${row.id}: attempt failed unexpectedly`);
          return { delivered: false, responseStatus: null, error: "internal error (see the server log)" };
        });
        const at = new Date();
        const retryAt = outcome.delivered || outcome.final ? null : nextAttemptAt(row.attempts + 1, this.settings.backoffSeconds, at);
        await recordAttempt(row, lease, { ...outcome, retryAt, at });
        const what = `notification ${row.id} (job ${row.jobId} ${row.event}, ${row.channel} ${displayTarget(row.channel, row.target)})`;
        if (outcome.delivered) log().info({ jobId: row.jobId }, `${what}: delivered`);
        else
          log().warn(
            { jobId: row.jobId },
            `${what}: ${outcome.error}${retryAt ? `; next attempt at ${retryAt.toISOString()}` : "; giving up"}`,
          );
      }
    } catch (error) {
      log().error({ err: error }, "notification pass failed");
    } finally {
      this.running = false;
    }
    return attempted;
  }

  private async attempt(row: DeliveryRow): Promise<Outcome> {
    const event = row.event as NotifyEvent;
    const job = await getJobView(row.jobId);
    if (!job) return { delivered: false, responseStatus: null, error: "the job no longer exists", final: true };
    let recap: Recap | null = null;
    let artifacts = notificationArtifacts(null);
    if (event !== "approval") {
      recap = await cachedJobRecap(row.jobId).then(
        (r) => r.recap,
        () => null,
      );
      // {} when the playbook set nothing; null when not known (the output gone before they were kept).
      artifacts = notificationArtifacts(await knownArtifacts(job).catch(() => null));
    }
    const body = notificationBody(event, job, recap, this.settings.publicUrl, artifacts);
    if (row.channel === "webhook") {
      const form = await findForm(row.formName);
      const entry = form ? webhookSecretName(form.definition.notify, event, row.target) : { found: false };
      if (!entry.found)
        return { delivered: false, responseStatus: null, error: `the form no longer notifies this URL of ${event}`, final: true };
      let secret: string | undefined;
      if (entry.secret) {
        const resolved = await webhookSecret(entry.secret);
        if (!resolved.ok) return { delivered: false, responseStatus: null, error: resolved.message };
        secret = resolved.secret;
      }
      return postWebhook(row.target, body, row.id, secret);
    }
    return this.sendEmail(row.target, body);
  }

  private async sendEmail(to: string, body: NotificationBody): Promise<Outcome> {
    const { smtpUrl } = this.settings;
    if (!smtpUrl) return { delivered: false, responseStatus: null, error: NO_SMTP };
    this.transport ??= nodemailer.createTransport({
      url: smtpUrl,
      connectionTimeout: 20_000,
      greetingTimeout: 20_000,
      socketTimeout: 60_000,
    });
    const from = this.settings.smtpFrom ?? `Playform <playform@${new URL(this.settings.publicUrl).hostname}>`;
    try {
      await this.transport.sendMail({ from, to, subject: emailSubject(body), text: emailText(body) });
      return { delivered: true, responseStatus: null, error: null };
    } catch (error) {
      return {
        delivered: false,
        responseStatus: null,
        error: scrub(error instanceof Error ? error.message : String(error), [this.smtpPassword, smtpUrl]),
      };
    }
  }
}
