/**
 * Retention settings (docs/operations.md, "Retention"), read from the environment with zod. server/config.ts
 * checks them at boot with the rest of the configuration, so a bad value stops the start with
 * the variable's name; the custom server and route handlers read them through
 * retentionSettings() (same environment). Everything is off by default.
 */
import { z } from "zod";
import { DomainError } from "../errors";

/** A whole number from `min`, or unset ("" counts as unset). */
const optionalInt = (min: number, max: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((text) => (text === undefined || text === "" ? undefined : Number(text)))
    .pipe(
      z
        .number({ error: `must be a whole number from ${min} to ${max}` })
        .int(`must be a whole number from ${min} to ${max}`)
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max}`)
        .optional(),
    );

export const retentionEnvShape = {
  /** Output of jobs finished more than this many days ago is removed (the recap stays). */
  PLAYFORM_RETENTION_DAYS: optionalInt(1, 36_500),
  /** Output of all but the newest this many finished jobs of each form is removed. */
  PLAYFORM_RETENTION_KEEP_PER_FORM: optionalInt(1, 1_000_000),
  /** Audit events older than this many days are deleted. */
  PLAYFORM_AUDIT_RETENTION_DAYS: optionalInt(1, 36_500),
  /** The hour (0-23, UTC) of the daily cleanup; unset: a few minutes after start, then every 24 hours. */
  PLAYFORM_RETENTION_HOUR: optionalInt(0, 23),
};

const retentionEnvSchema = z.object(retentionEnvShape);

export interface RetentionSettings {
  days: number | null;
  keepPerForm: number | null;
  auditDays: number | null;
  hour: number | null;
}

/** The settings as the environment gives them (already checked at boot). */
export function retentionSettings(env: Readonly<Record<string, string | undefined>> = process.env): RetentionSettings {
  const parsed = retentionEnvSchema.parse(env);
  return {
    days: parsed.PLAYFORM_RETENTION_DAYS ?? null,
    keepPerForm: parsed.PLAYFORM_RETENTION_KEEP_PER_FORM ?? null,
    auditDays: parsed.PLAYFORM_AUDIT_RETENTION_DAYS ?? null,
    hour: parsed.PLAYFORM_RETENTION_HOUR ?? null,
  };
}

/** Whether any cleanup is switched on. */
export function retentionEnabled(settings: RetentionSettings): boolean {
  return settings.days !== null || settings.keepPerForm !== null || settings.auditDays !== null;
}

/** The settings as variables, only those set: `{PLAYFORM_RETENTION_DAYS: 30}`. */
export function settingsInUse(settings: RetentionSettings): Record<string, number> {
  const out: Record<string, number> = {};
  if (settings.days !== null) out.PLAYFORM_RETENTION_DAYS = settings.days;
  if (settings.keepPerForm !== null) out.PLAYFORM_RETENTION_KEEP_PER_FORM = settings.keepPerForm;
  if (settings.auditDays !== null) out.PLAYFORM_AUDIT_RETENTION_DAYS = settings.auditDays;
  return out;
}

/** The 410 a reader of a purged job's output gets (docs/api.md, "Retention"). */
export function outputGone(jobId: number, purgedAt: string): DomainError {
  const inUse = Object.entries(settingsInUse(retentionSettings()))
    .filter(([name]) => name !== "PLAYFORM_AUDIT_RETENTION_DAYS")
    .map(([name, value]) => `${name}=${value}`)
    .join(", ");
  return new DomainError(
    "gone",
    `the output of job ${jobId} was removed by retention on ${purgedAt.slice(0, 10)}${inUse ? ` (${inUse})` : ""}; its recap stays (GET /api/jobs/${jobId}/recap)`,
  );
}
