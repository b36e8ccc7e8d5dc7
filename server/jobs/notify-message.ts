/**
 * What a notification says (docs/forms.md, "Notifications"): the webhook's JSON body and its
 * signature, the email's subject and text, and when a failed delivery is tried again. Pure
 * functions of their inputs; sending is server/jobs/notify-delivery.ts.
 */
import { createHmac } from "node:crypto";
import type { JobView } from "../data/jobs";
import type { NotifyEvent } from "../forms/notify";
import type { Recap } from "../recap/types";

export interface RecapCounts {
  hosts: number;
  ok: number;
  changed: number;
  failed: number;
  unreachable: number;
  skipped: number;
  rescued: number;
  ignored: number;
}

export interface NotificationBody {
  event: NotifyEvent;
  job: {
    id: number;
    form: string;
    status: string;
    statusReason: string | null;
    user: string;
    runner: string | null;
    createdAt: string;
    startedAt: string | null;
    finishedAt: string | null;
    url: string;
  };
  recap: RecapCounts | null;
  /**
   * What the playbook handed back with set_stats (the job's run-wide artifacts, masked as its
   * output): {} when it set none; null for an approval, when they are not known (no events, the
   * output removed) or when they were left out (artifactsOmitted says why).
   */
  artifacts: Record<string, unknown> | null;
  /** Why artifacts is null though the playbook set some (over the cap a notification carries, or refused by the runner); else null. */
  artifactsOmitted: string | null;
  /** A drift event: the hosts the check found would change (its recap's hosts with changed > 0, by name); null for other events. */
  driftedHosts: string[] | null;
}

/** The most set_stats data a notification carries (JSON bytes): more is left out with a link to the job. */
export const NOTIFY_ARTIFACTS_MAX_BYTES = 64 * 1024;

/** The artifacts as a notification carries them (see NotificationBody), from what is known of the job. */
export function notificationArtifacts(
  known: { artifacts: Record<string, unknown>; error: string | null } | null,
): Pick<NotificationBody, "artifacts" | "artifactsOmitted"> {
  if (known === null) return { artifacts: null, artifactsOmitted: null };
  if (known.error !== null) return { artifacts: null, artifactsOmitted: known.error };
  const bytes = Buffer.byteLength(JSON.stringify(known.artifacts), "utf8");
  if (bytes > NOTIFY_ARTIFACTS_MAX_BYTES) {
    return {
      artifacts: null,
      artifactsOmitted: `set_stats data of ${bytes} bytes is over the ${NOTIFY_ARTIFACTS_MAX_BYTES} bytes a notification carries: see the job`,
    };
  }
  return { artifacts: known.artifacts, artifactsOmitted: null };
}

/** PLAY RECAP's rows; an incomplete run's rows so far when it has no PLAY RECAP. */
function recapRows(recap: Recap): Recap["hosts"] {
  return recap.hosts.length === 0 && recap.partial_hosts ? recap.partial_hosts : recap.hosts;
}

/** PLAY RECAP's counts summed over its hosts; an incomplete run's counts so far when it has no PLAY RECAP. */
export function recapCounts(recap: Recap): RecapCounts {
  const rows = recapRows(recap);
  const counts: RecapCounts = { hosts: rows.length, ok: 0, changed: 0, failed: 0, unreachable: 0, skipped: 0, rescued: 0, ignored: 0 };
  for (const row of rows) {
    counts.ok += row.ok;
    counts.changed += row.changed;
    counts.failed += row.failed;
    counts.unreachable += row.unreachable;
    counts.skipped += row.skipped;
    counts.rescued += row.rescued;
    counts.ignored += row.ignored;
  }
  return counts;
}

/** The job's page: `<public URL>/jobs/<id>`. */
export function jobUrl(publicUrl: string, jobId: number): string {
  return `${publicUrl.replace(/\/+$/, "")}/jobs/${jobId}`;
}

export function notificationBody(
  event: NotifyEvent,
  job: JobView,
  recap: Recap | null,
  publicUrl: string,
  artifacts: Pick<NotificationBody, "artifacts" | "artifactsOmitted"> = { artifacts: null, artifactsOmitted: null },
): NotificationBody {
  return {
    event,
    job: {
      id: job.id,
      form: job.form,
      status: job.status,
      statusReason: job.statusReason,
      user: job.user,
      runner: job.runner,
      createdAt: job.createdAt,
      startedAt: job.startedAt,
      finishedAt: job.finishedAt,
      url: jobUrl(publicUrl, job.id),
    },
    recap: recap ? recapCounts(recap) : null,
    ...artifacts,
    driftedHosts:
      event === "drift" && recap
        ? recapRows(recap)
            .filter((row) => row.changed > 0)
            .map((row) => row.host)
        : null,
  };
}

/** `X-Playform-Signature`: `sha256=` and the hex HMAC-SHA256 of the raw body with the secret. */
export function signature(rawBody: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(rawBody, "utf8").digest("hex")}`;
}

const EVENT_WORDS: Record<NotifyEvent, string> = {
  success: "succeeded",
  failed: "failed",
  abandoned: "was abandoned",
  approval: "needs approval",
  drift: "found hosts drifted",
};

export function emailSubject(body: NotificationBody): string {
  return `[Playform] job #${body.job.id} ${body.job.form} ${EVENT_WORDS[body.event]}`;
}

/** An email lists at most this many results, each cut at this many characters (the job's page has them all). */
const EMAIL_ARTIFACTS_MAX_KEYS = 20;
const EMAIL_ARTIFACT_MAX_CHARS = 200;
const EMAIL_DRIFTED_HOSTS_MAX = 50;

export function emailText(body: NotificationBody): string {
  const { job, recap } = body;
  const lines = [
    `Job #${job.id} of the form ${job.form} ${EVENT_WORDS[body.event]}.`,
    "",
    `Status:   ${job.status}${job.statusReason ? ` (${job.statusReason})` : ""}`,
    `Launched: by ${job.user} at ${job.createdAt}`,
  ];
  if (job.runner) lines.push(`Runner:   ${job.runner}`);
  if (job.startedAt) lines.push(`Started:  ${job.startedAt}`);
  if (job.finishedAt) lines.push(`Finished: ${job.finishedAt}`);
  if (body.driftedHosts && body.driftedHosts.length > 0) {
    const shown = body.driftedHosts.slice(0, EMAIL_DRIFTED_HOSTS_MAX);
    const more = body.driftedHosts.length - shown.length;
    lines.push(
      "",
      `Drifted: ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""} (check mode found changes; each host's page has the diff)`,
    );
  }
  if (recap) {
    lines.push(
      "",
      `Recap: ${recap.hosts} host(s): ok=${recap.ok} changed=${recap.changed} failed=${recap.failed} unreachable=${recap.unreachable} ` +
        `skipped=${recap.skipped} rescued=${recap.rescued} ignored=${recap.ignored}`,
    );
  }
  const results = Object.entries(body.artifacts ?? {});
  if (results.length > 0 || body.artifactsOmitted) {
    lines.push("", "Results (set_stats):");
    for (const [key, value] of results.slice(0, EMAIL_ARTIFACTS_MAX_KEYS)) {
      const text = typeof value === "string" ? value : JSON.stringify(value);
      lines.push(`  ${key}: ${text.length > EMAIL_ARTIFACT_MAX_CHARS ? `${text.slice(0, EMAIL_ARTIFACT_MAX_CHARS)}…` : text}`);
    }
    if (results.length > EMAIL_ARTIFACTS_MAX_KEYS)
      lines.push(`  … and ${results.length - EMAIL_ARTIFACTS_MAX_KEYS} more on the job's page`);
    if (body.artifactsOmitted) lines.push(`  ${body.artifactsOmitted}`);
  }
  lines.push("", `Open the job: ${job.url}`, "");
  return lines.join("\n");
}

/** Delays before the 2nd, 3rd, … attempt of a delivery: 10 s, 30 s, 2 min, 10 min, 30 min; then it has failed. */
export const DEFAULT_BACKOFF_SECONDS: readonly number[] = [10, 30, 120, 600, 1800];

/** PLAYFORM_NOTIFY_BACKOFF_SECONDS: delays in seconds separated by commas ("10,30,120"); throws naming what is wrong. */
export function parseBackoff(text: string | undefined): number[] {
  if (text === undefined || text.trim() === "") return [...DEFAULT_BACKOFF_SECONDS];
  const delays = text.split(",").map((part) => Number(part.trim()));
  if (delays.some((delay) => !Number.isFinite(delay) || delay < 0 || delay > 86_400) || delays.length > 20) {
    throw new Error("must be at most 20 delays in seconds (0 to 86400) separated by commas, e.g. 10,30,120,600,1800");
  }
  return delays;
}

/**
 * When to try again after the attempt number `attempts` (1 for the first) failed, or null when
 * that was the last one: there are as many retries as delays.
 */
export function nextAttemptAt(attempts: number, backoffSeconds: readonly number[], now: Date): Date | null {
  const delay = backoffSeconds[attempts - 1];
  return delay === undefined ? null : new Date(now.getTime() + delay * 1000);
}
