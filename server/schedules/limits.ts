/**
 * What a non-admin may schedule (docs/api.md, "Schedules"): at most one run every
 * PLAYFORM_SCHEDULE_MIN_SECONDS (a cron of every second would flood the queue and the runners)
 * and at most PLAYFORM_SCHEDULES_PER_USER enabled schedules. Admins are not limited. Read from
 * the environment with zod; server/config.ts checks them at boot with the rest of the
 * configuration, so a bad value stops the start naming the variable.
 */
import { z } from "zod";

const wholeNumber = (min: number, max: number, fallback: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((text) => (text === undefined || text === "" ? fallback : Number(text)))
    .pipe(
      z
        .number({ error: `must be a whole number from ${min} to ${max}` })
        .int(`must be a whole number from ${min} to ${max}`)
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max}`),
    );

export const scheduleLimitsEnvShape = {
  /** The shortest gap between two runs of a non-admin's schedule, in seconds. */
  PLAYFORM_SCHEDULE_MIN_SECONDS: wholeNumber(1, 31 * 24 * 3600, 60),
  /** How many enabled schedules a non-admin may have. */
  PLAYFORM_SCHEDULES_PER_USER: wholeNumber(1, 100_000, 20),
};

const scheduleLimitsSchema = z.object(scheduleLimitsEnvShape);

export interface ScheduleLimits {
  minSeconds: number;
  perUser: number;
}

/** The limits as the environment gives them (already checked at boot). */
export function scheduleLimits(env: Readonly<Record<string, string | undefined>> = process.env): ScheduleLimits {
  const parsed = scheduleLimitsSchema.parse(env);
  return { minSeconds: parsed.PLAYFORM_SCHEDULE_MIN_SECONDS, perUser: parsed.PLAYFORM_SCHEDULES_PER_USER };
}
