/**
 * Retention (docs/operations.md, "Retention"): removes the output of old finished jobs and old audit
 * events, so the database stays bounded however long the app runs.
 *
 * A job's output goes when either setting says so: it finished more than
 * PLAYFORM_RETENTION_DAYS ago, or it is not among the newest PLAYFORM_RETENTION_KEEP_PER_FORM
 * finished jobs of its form. Only final jobs (success, failed, aborted, abandoned, rejected)
 * are touched. For each job, first its recap is computed and cached on the job (Job.recap),
 * then its chunks and markers are deleted a few thousand rows per statement with a pause
 * between statements (on SQLite a write blocks every other writer), the job is marked
 * (`outputPurgedAt`) and its uploads are deleted. The job row stays: lists, recaps,
 * comparisons, trends and idempotence reports read the cached recap.
 *
 * One run at a time: per node by a flag, across nodes by a PostgreSQL advisory lock
 * (server/data/retention.ts). Every run is audited (`retention.run`, with its counts), which is
 * also where GET /api/retention finds the last run.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  countAuditEventsBefore,
  countJobsToPurge,
  deleteAuditEventsBefore,
  latestAuditEventOf,
  listJobsToPurge,
  purgeJobOutput,
  purgeWhere,
  sqliteReleaseFreePages,
  withRetentionLock,
} from "../data/retention";
import { errorDetails, recordAudit } from "../audit/record";
import { DomainError } from "../errors";
import { deleteJobUploads } from "../forms/uploads";
import { FINAL_STATUSES } from "../jobs/lifecycle";
import { latestArtifacts } from "../jobs/artifacts";
import { storeKeptArtifacts } from "../data/jobs";
import { cachedJobRecap } from "../jobs/recap-cache";
import { loggerFor } from "../logging/logger";
import { scheduledRetentionRun } from "./next-run";
import { retentionEnabled, retentionSettings, settingsInUse, type RetentionSettings } from "./settings";

const log = loggerFor({ component: "retention" });

const DAY_MS = 24 * 3600 * 1000;

export interface RetentionLimits {
  /** Jobs whose output one step deletes (their recaps are cached first). */
  jobBatch: number;
  /** Rows one delete statement removes at most. */
  rowBatch: number;
  /** The pause after each delete statement, so requests and runners get the database in between. */
  pauseMs: number;
}

export const DEFAULT_LIMITS: RetentionLimits = { jobBatch: 500, rowBatch: 5_000, pauseMs: 50 };

export interface RetentionReport {
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Jobs whose output was removed. */
  jobs: number;
  /** Rows deleted: output chunks, markers, audit events. */
  chunks: number;
  markers: number;
  auditEvents: number;
  /** Uploaded files removed with their jobs. */
  uploadFiles: number;
  /** Jobs skipped because their recap could not be computed (their output stays; logged). */
  failedJobs: number;
  /** The most rows one delete statement removed (at most the row batch). */
  largestStatement: number;
}

export interface RetentionPreview {
  /** Jobs whose output a run now would remove. */
  jobs: number;
  /** Audit events a run now would delete. */
  auditEvents: number;
}

function cutoff(now: Date, days: number | null): Date | undefined {
  return days === null ? undefined : new Date(now.getTime() - days * DAY_MS);
}

async function jobsWhere(settings: RetentionSettings, now: Date) {
  return purgeWhere({
    statuses: FINAL_STATUSES,
    finishedBefore: cutoff(now, settings.days),
    keepPerForm: settings.keepPerForm ?? undefined,
  });
}

/** What a run now would clean, counted. */
export async function previewRetention(settings: RetentionSettings = retentionSettings(), now = new Date()): Promise<RetentionPreview> {
  const auditBefore = cutoff(now, settings.auditDays);
  return {
    jobs: await countJobsToPurge(await jobsWhere(settings, now)),
    auditEvents: auditBefore ? await countAuditEventsBefore(auditBefore) : 0,
  };
}

async function clean(settings: RetentionSettings, limits: RetentionLimits, now: Date): Promise<RetentionReport> {
  const started = Date.now();
  const report: RetentionReport = {
    startedAt: new Date(started).toISOString(),
    finishedAt: "",
    durationMs: 0,
    jobs: 0,
    chunks: 0,
    markers: 0,
    auditEvents: 0,
    uploadFiles: 0,
    failedJobs: 0,
    largestStatement: 0,
  };
  const pause = () => (limits.pauseMs > 0 ? sleep(limits.pauseMs) : Promise.resolve());
  const onStatement = (rows: number) => {
    report.largestStatement = Math.max(report.largestStatement, rows);
  };

  const where = await jobsWhere(settings, now);
  let afterId = 0;
  while (where) {
    const jobs = await listJobsToPurge({ ...where, id: { gt: afterId } }, limits.jobBatch);
    if (jobs.length === 0) break;
    afterId = jobs.at(-1)!.id;
    const ready: number[] = [];
    for (const job of jobs) {
      try {
        // Computes and stores the recap unless it is cached already: it must outlive the output.
        await cachedJobRecap(job.id);
        // So must what the playbook handed back (set_stats), read from the events about to go.
        await storeKeptArtifacts(job.id, await latestArtifacts(job.id));
        ready.push(job.id);
      } catch (error) {
        report.failedJobs++;
        log().error({ err: error, jobId: job.id }, `retention: the recap of job ${job.id} could not be computed; its output stays`);
      }
    }
    if (ready.length === 0) continue;
    const purged = await purgeJobOutput(ready, { rowBatch: limits.rowBatch, pause, statuses: FINAL_STATUSES, at: now, onStatement });
    report.jobs += purged.jobs;
    report.chunks += purged.chunks;
    report.markers += purged.markers;
    for (const id of ready) report.uploadFiles += await deleteJobUploads(id, now);
  }

  const auditBefore = cutoff(now, settings.auditDays);
  if (auditBefore) report.auditEvents = await deleteAuditEventsBefore(auditBefore, { batch: limits.rowBatch, pause, onStatement });

  if (report.chunks + report.markers + report.auditEvents > 0) await sqliteReleaseFreePages();
  report.finishedAt = new Date().toISOString();
  report.durationMs = Date.now() - started;
  return report;
}

// One run per node at a time (a route handler's bundle and the custom server share it).
const KEY = Symbol.for("playform.retention.running");
const holder = globalThis as typeof globalThis & { [KEY]?: boolean };

/**
 * Runs retention now with the current settings (or those given). Null when a run is under way
 * already, on this node or another. `actor`: the admin who asked, null for the daily run.
 */
export async function runRetention(
  options: { settings?: RetentionSettings; limits?: Partial<RetentionLimits>; now?: Date; actor?: string | null } = {},
): Promise<RetentionReport | null> {
  if (holder[KEY]) return null;
  holder[KEY] = true;
  const settings = options.settings ?? retentionSettings();
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const now = options.now ?? new Date();
  try {
    let report: RetentionReport | null;
    try {
      report = await withRetentionLock(() => clean(settings, limits, now));
    } catch (error) {
      // A run that broke off is recorded as such (what it removed before is gone all the same).
      await recordAudit({
        actor: options.actor ?? null,
        action: "retention.run",
        outcome: "failure",
        details: { ...errorDetails(error), settings: settingsInUse(settings) },
      });
      throw error;
    }
    if (report) {
      await recordAudit({
        actor: options.actor ?? null,
        action: "retention.run",
        outcome: "success",
        details: { ...report, settings: settingsInUse(settings) },
      });
      log().info(
        report,
        `retention: output of ${report.jobs} job(s) removed (${report.chunks} chunks, ${report.markers} markers), ${report.auditEvents} audit event(s) deleted in ${report.durationMs} ms`,
      );
    }
    return report;
  } finally {
    holder[KEY] = false;
  }
}

/** POST /api/retention/run: a run now, or 409 while one is under way. */
export async function runRetentionNow(actor: string): Promise<RetentionReport> {
  const report = await runRetention({ actor });
  if (!report) throw new DomainError("conflict", "a retention run is under way already; try again when it has finished");
  return report;
}

export interface RetentionStatus {
  settings: RetentionSettings & { enabled: boolean };
  /** The last run (on any node), from the audit trail; null when none is recorded. */
  lastRun: (RetentionReport & { actor: string | null }) | null;
  /** What a run now would clean. */
  pending: RetentionPreview;
  /** When this node runs it next (ISO 8601); null when no setting is on. */
  nextRunAt: string | null;
}

/** GET /api/retention. */
export async function retentionStatus(): Promise<RetentionStatus> {
  const settings = retentionSettings();
  const last = await latestAuditEventOf("retention.run");
  let lastRun: RetentionStatus["lastRun"] = null;
  if (last?.details) {
    try {
      const details = JSON.parse(last.details) as RetentionReport & { settings?: unknown };
      delete details.settings;
      lastRun = { ...details, actor: last.actor };
    } catch {
      lastRun = null;
    }
  }
  return {
    settings: { ...settings, enabled: retentionEnabled(settings) },
    lastRun,
    pending: await previewRetention(settings),
    nextRunAt: scheduledRetentionRun()?.toISOString() ?? null,
  };
}
