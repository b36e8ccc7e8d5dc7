/**
 * Schedules: a form, its values and run options, launched on a cron in a time zone
 * (server/schedules/cron.ts) by the scheduler (server/schedules/scheduler.ts).
 *
 * - Who may: whoever may launch a form saves schedules of it (admins: of every form); a
 *   schedule is read, changed and deleted by its owner and by admins. Another's schedule is
 *   "not found" to others, as jobs are.
 * - Its jobs run with the rights of its owner, the user who created it (an admin's edit does
 *   not change whose rights): every tick launches through launchJob as the owner.
 * - Its values are checked when saved exactly as a launch checks them (checkLaunchInput), and
 *   again at each tick; values that no longer pass, a form gone or one the owner may no longer
 *   launch pause it with the reason (`pausedReason`, audited as `schedule.pause`).
 * - Its mode: "run" launches the form as it is; "drift" makes each job a drift check
 *   (server/recap/drift.ts: --check --diff, its hosts' changes mark them drifted).
 * - Password values are stored sealed (as a job's are, server/jobs/job-secrets.ts), handed to
 *   each launch, never shown back ("********"). Left out or sent as "********" in a change, the
 *   stored one is kept.
 */
import { z } from "zod";
import { recordAudit } from "../audit/record";
import { viewerOf, type Viewer } from "../access/policy";
import { DomainError } from "../errors";
import {
  countEnabledSchedules,
  createSchedule as insertSchedule,
  deleteSchedule as removeSchedule,
  findSchedule,
  findUserById,
  listSchedules as readSchedules,
  updateSchedule as writeSchedule,
  usernamesOf,
  type ScheduleData,
  type ScheduleRow,
} from "../data/schedules";
import type { PublicUser } from "../data/users";
import type { FormDefinition } from "../forms/definition";
import type { FormValues } from "../forms/values";
import { checkLaunchInput } from "../jobs/launch";
import { decryptCredential, encryptCredential } from "../security/credential-crypto";
import { credentialKey } from "../security/encryption-secret";
import { cronProblems, minimumGapSeconds, nextRun, nextRuns } from "./cron";
import { scheduleLimits } from "./limits";

export const OVERLAPS = ["skip", "queue"] as const;
export type Overlap = (typeof OVERLAPS)[number];
export const SCHEDULE_MODES = ["run", "drift"] as const;
export type ScheduleMode = (typeof SCHEDULE_MODES)[number];

const MASK = "********";

export const newScheduleSchema = z.strictObject({
  form: z.string().min(1, "is required"),
  values: z.record(z.string(), z.unknown()).default({}),
  /** Run options the form lets users choose at launch; checked against the form as a launch's are. */
  options: z.unknown().optional(),
  cron: z.string().min(1, "is required").max(200, "must be at most 200 characters"),
  timezone: z.string().min(1, "must name a time zone").max(100).default("UTC"),
  overlap: z.enum(OVERLAPS, 'must be "skip" or "queue"').default("skip"),
  mode: z.enum(SCHEDULE_MODES, 'must be "run" or "drift"').default("run"),
  enabled: z.boolean("must be true or false").default(true),
});
export type NewSchedule = z.infer<typeof newScheduleSchema>;

export const scheduleChangeSchema = z.strictObject({
  values: z.record(z.string(), z.unknown()).optional(),
  options: z.unknown().optional(),
  cron: z.string().min(1, "is required").max(200, "must be at most 200 characters").optional(),
  timezone: z.string().min(1, "must name a time zone").max(100).optional(),
  overlap: z.enum(OVERLAPS, 'must be "skip" or "queue"').optional(),
  mode: z.enum(SCHEDULE_MODES, 'must be "run" or "drift"').optional(),
  enabled: z.boolean("must be true or false").optional(),
});
export type ScheduleChange = z.infer<typeof scheduleChangeSchema>;

/** A schedule as the API and the Schedules page show it: never a password value. */
export interface ScheduleView {
  id: number;
  form: string;
  values: Record<string, unknown>;
  options: Record<string, unknown>;
  cron: string;
  timezone: string;
  overlap: Overlap;
  /** "run", or "drift": each job is a drift check (--check --diff) whose changes mark hosts drifted. */
  mode: ScheduleMode;
  enabled: boolean;
  /** Why Playform paused it (null when it runs, or when a person paused it). */
  pausedReason: string | null;
  /** The username whose rights its jobs run with (null if that account is gone). */
  owner: string | null;
  /** The next run times (ISO 8601), none while paused. */
  nextRuns: string[];
  lastRunAt: string | null;
  lastJobId: number | null;
  createdAt: string;
  updatedAt: string;
}

const sealData = (id: number) => `schedule:${id}:values`;

/** The sealed form of a schedule's password values (its `secretValues` column). */
export function sealScheduleSecrets(id: number, secrets: Record<string, unknown>): string {
  return encryptCredential(credentialKey(), sealData(id), JSON.stringify(secrets));
}

/** A schedule's values as each launch gets them: the stored ones with the password values opened. */
export function launchValuesOf(row: ScheduleRow): Record<string, unknown> {
  const secrets = row.secretValues
    ? (JSON.parse(decryptCredential(credentialKey(), sealData(row.id), row.secretValues)) as Record<string, unknown>)
    : {};
  return { ...row.values, ...secrets };
}

function passwordFields(form: FormDefinition): string[] {
  return form.fields.filter((field) => field.type === "password").map((field) => field.name);
}

function checkCron(cron: string, timezone: string): void {
  const problems = cronProblems(cron, timezone);
  if (problems) {
    const summary = Object.entries(problems)
      .map(([field, message]) => `${field}: ${message}`)
      .join("; ");
    throw new DomainError("validation_failed", summary, problems);
  }
}

/**
 * A non-admin's limits (server/schedules/limits.ts), checked when a schedule is saved: the cron's
 * shortest gap between its coming runs, when its timing is new; the number of enabled schedules
 * of the owner, when one more becomes enabled. Admins are not limited.
 */
async function checkLimits(
  actor: PublicUser,
  timing: { cron: string; timezone: string } | null,
  enabling: { ownerId: string } | null,
): Promise<void> {
  if (actor.role === "admin") return;
  const limits = scheduleLimits();
  if (timing) {
    const gap = minimumGapSeconds(timing.cron, timing.timezone, new Date());
    if (gap !== null && gap < limits.minSeconds) {
      // In the user's words: the server setting behind the rule is for admins (docs/configuration.md).
      const message = `runs ${formatGap(gap)} apart at times; a schedule may run at most once every ${formatGap(limits.minSeconds)} (a limit your admin sets)`;
      throw new DomainError("validation_failed", `cron: ${message}`, { cron: message });
    }
  }
  if (enabling && (await countEnabledSchedules(enabling.ownerId)) >= limits.perUser) {
    const message = `you may have at most ${limits.perUser} enabled schedules (a limit your admin sets): pause or delete one first`;
    throw new DomainError("validation_failed", `enabled: ${message}`, { enabled: message });
  }
}

function formatGap(seconds: number): string {
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

/** The values to store in plain and the password values to seal, checked as a launch would check them. */
async function checkedValues(
  owner: Viewer,
  formName: string,
  values: Record<string, unknown>,
  options: unknown,
): Promise<{ values: FormValues; secrets: Record<string, unknown>; options: Record<string, unknown> }> {
  const checked = await checkLaunchInput(owner, formName, values, options);
  const plain: FormValues = { ...checked.values };
  const secrets: Record<string, unknown> = {};
  for (const name of passwordFields(checked.form.definition)) {
    if (plain[name] != null) secrets[name] = plain[name];
    delete plain[name];
  }
  return { values: plain, secrets, options: checked.options };
}

function nextRunAfter(data: { enabled: boolean; cron: string; timezone: string }, now: Date): Date | null {
  return data.enabled ? nextRun(data.cron, data.timezone, now) : null;
}

export async function createSchedule(actor: Viewer, input: NewSchedule): Promise<ScheduleView> {
  checkCron(input.cron, input.timezone);
  await checkLimits(actor, { cron: input.cron.trim(), timezone: input.timezone }, input.enabled ? { ownerId: actor.id } : null);
  const checked = await checkedValues(actor, input.form, input.values, input.options);
  const data: ScheduleData = {
    formName: input.form,
    values: checked.values,
    runOptions: checked.options,
    cron: input.cron.trim(),
    timezone: input.timezone,
    overlap: input.overlap,
    mode: input.mode,
    enabled: input.enabled,
    pausedReason: null,
    nextRunAt: nextRunAfter({ ...input, cron: input.cron.trim() }, new Date()),
  };
  const id = await insertSchedule(actor.id, data, checked.secrets, sealScheduleSecrets);
  await recordAudit({
    actor: actor.username,
    action: "schedule.create",
    target: `schedule:${id}`,
    outcome: "success",
    details: { form: input.form, cron: data.cron, timezone: data.timezone, overlap: data.overlap, mode: data.mode, enabled: data.enabled },
  });
  return (await viewsOf([(await findSchedule(id))!]))[0]!;
}

/** The caller's own schedules; everyone's for admins. */
export async function listSchedules(actor: PublicUser): Promise<ScheduleView[]> {
  return viewsOf(await readSchedules(actor.role === "admin" ? null : actor.id));
}

async function requireOwnSchedule(actor: PublicUser, id: number): Promise<ScheduleRow> {
  const row = await findSchedule(id);
  if (!row || (row.ownerId !== actor.id && actor.role !== "admin")) throw new DomainError("not_found", `no schedule ${id}`);
  return row;
}

export async function getSchedule(actor: PublicUser, id: number): Promise<ScheduleView> {
  return (await viewsOf([await requireOwnSchedule(actor, id)]))[0]!;
}

/**
 * Changes a schedule: its values and options are checked again (with its owner's rights) when
 * they change or when it is enabled again; enabling clears the reason it was paused for and
 * counts the next run from now (ticks missed while paused are not made up).
 */
export async function updateSchedule(actor: PublicUser, id: number, change: ScheduleChange): Promise<ScheduleView> {
  const row = await requireOwnSchedule(actor, id);
  const cron = change.cron?.trim() ?? row.cron;
  const timezone = change.timezone ?? row.timezone;
  const enabled = change.enabled ?? row.enabled;
  checkCron(cron, timezone);
  await checkLimits(
    actor,
    cron !== row.cron || timezone !== row.timezone ? { cron, timezone } : null,
    enabled && !row.enabled ? { ownerId: row.ownerId } : null,
  );
  let values = row.values;
  let runOptions = row.runOptions;
  let secrets: Record<string, unknown> | undefined;
  if (change.values !== undefined || change.options !== undefined || (enabled && !row.enabled)) {
    const owner = await ownerViewer(row);
    if (!owner) throw new DomainError("conflict", `schedule ${id}'s owner no longer exists: delete it and save a new one`);
    const stored = storedValues(row);
    // A password value left out, or sent back masked, keeps the stored one.
    const given = change.values === undefined ? stored : keepStoredPasswords(change.values, stored);
    const checked = await checkedValues(owner, row.formName, given, change.options ?? row.runOptions ?? undefined);
    ({ values, secrets } = checked);
    runOptions = checked.options;
  }
  const data: ScheduleData = {
    formName: row.formName,
    values,
    runOptions,
    cron,
    timezone,
    overlap: change.overlap ?? row.overlap,
    mode: change.mode ?? row.mode,
    enabled,
    pausedReason: enabled ? null : row.pausedReason,
    // Unchanged timing leaves the next run alone: writing back the value read could reopen a
    // tick a scheduler claimed meanwhile, and launch it twice.
    nextRunAt:
      enabled && row.enabled && cron === row.cron && timezone === row.timezone
        ? undefined
        : nextRunAfter({ enabled, cron, timezone }, new Date()),
  };
  await writeSchedule(id, data, secrets, sealScheduleSecrets);
  const changed = Object.keys(change).filter((key) => key !== "values");
  const audit = { actor: actor.username, target: `schedule:${id}`, outcome: "success" } as const;
  if (row.enabled && !enabled)
    await recordAudit({ ...audit, action: "schedule.pause", details: { form: row.formName, by: actor.username } });
  await recordAudit({
    ...audit,
    action: "schedule.update",
    details: { form: row.formName, changed: change.values ? [...changed, "values"] : changed },
  });
  return getSchedule(actor, id);
}

/** The stored values with the password values when they still open (a changed ENCRYPTION_SECRET: without them, to be given again). */
function storedValues(row: ScheduleRow): Record<string, unknown> {
  try {
    return launchValuesOf(row);
  } catch {
    return row.values;
  }
}

function keepStoredPasswords(given: Record<string, unknown>, stored: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...given };
  for (const [name, value] of Object.entries(stored)) {
    if (merged[name] === MASK || (merged[name] === undefined && value !== undefined)) merged[name] = value;
  }
  return merged;
}

export async function deleteSchedule(actor: PublicUser, id: number): Promise<void> {
  const row = await requireOwnSchedule(actor, id);
  if (!(await removeSchedule(id))) throw new DomainError("not_found", `no schedule ${id}`);
  await recordAudit({
    actor: actor.username,
    action: "schedule.delete",
    target: `schedule:${id}`,
    outcome: "success",
    details: { form: row.formName },
  });
}

/** The owner with their current role and groups, or null when their account is gone. */
export async function ownerViewer(row: ScheduleRow): Promise<Viewer | null> {
  const owner = await findUserById(row.ownerId);
  return owner ? viewerOf(owner) : null;
}

async function viewsOf(rows: ScheduleRow[]): Promise<ScheduleView[]> {
  const owners = await usernamesOf(rows.map((row) => row.ownerId));
  const now = new Date();
  return rows.map((row) => ({
    id: row.id,
    form: row.formName,
    // Password values are stored apart; show that one is set the way a job's values do.
    values: { ...row.values, ...Object.fromEntries(Object.keys(secretNames(row)).map((name) => [name, MASK])) },
    options: row.runOptions ?? {},
    cron: row.cron,
    timezone: row.timezone,
    overlap: row.overlap === "queue" ? "queue" : "skip",
    mode: row.mode === "drift" ? "drift" : "run",
    enabled: row.enabled,
    pausedReason: row.pausedReason,
    owner: owners.get(row.ownerId) ?? null,
    nextRuns: row.enabled ? nextRuns(row.cron, row.timezone, now).map((at) => at.toISOString()) : [],
    lastRunAt: row.lastRunAt?.toISOString() ?? null,
    lastJobId: row.lastJobId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}

/** The names of the stored password values (opened only to learn their names; never shown). */
function secretNames(row: ScheduleRow): Record<string, unknown> {
  if (!row.secretValues) return {};
  try {
    return launchValuesOf({ ...row, values: {} });
  } catch {
    return {};
  }
}
