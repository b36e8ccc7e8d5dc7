/**
 * Schedules (server/schedules): a form's values launched on a cron. The scheduler of every app
 * node reads the due ones and claims each tick with one conditional update (claimTick), so with
 * several nodes exactly one launches it.
 */
import { getDb } from "./db";
import type { JobStatus } from "./jobs";
import type { PublicUser } from "./users";

export interface ScheduleRow {
  id: number;
  formName: string;
  values: Record<string, unknown>;
  runOptions: Record<string, unknown> | null;
  secretValues: string | null;
  cron: string;
  timezone: string;
  overlap: string;
  mode: string;
  enabled: boolean;
  pausedReason: string | null;
  ownerId: string;
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  lastJobId: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a schedule is saved with; its password values are stored only as `seal` turns them into. */
export interface ScheduleData {
  formName: string;
  values: Record<string, unknown>;
  runOptions: Record<string, unknown> | null;
  cron: string;
  timezone: string;
  overlap: string;
  mode: string;
  enabled: boolean;
  pausedReason: string | null;
  /** Undefined in a change: left as it is (a tick the scheduler just claimed must not come back). */
  nextRunAt: Date | null | undefined;
}

type Seal = (scheduleId: number, secrets: Record<string, unknown>) => string;

function toRow(row: Awaited<ReturnType<ReturnType<typeof getDb>["schedule"]["findFirstOrThrow"]>>): ScheduleRow {
  return {
    ...row,
    values: (row.values ?? {}) as Record<string, unknown>,
    runOptions: (row.runOptions ?? null) as Record<string, unknown> | null,
  };
}

function columns(data: ScheduleData) {
  return { ...data, values: data.values as object, runOptions: (data.runOptions ?? undefined) as object | undefined };
}

/** Stores a new schedule, its password values sealed with its id (hence one transaction). */
export async function createSchedule(ownerId: string, data: ScheduleData, secrets: Record<string, unknown>, seal: Seal): Promise<number> {
  return getDb().$transaction(async (tx) => {
    const { id } = await tx.schedule.create({ data: { ...columns(data), ownerId }, select: { id: true } });
    if (Object.keys(secrets).length > 0) await tx.schedule.update({ where: { id }, data: { secretValues: seal(id, secrets) } });
    return id;
  });
}

/** Replaces what a schedule runs and when; `secrets` undefined keeps the sealed values as they are. */
export async function updateSchedule(id: number, data: ScheduleData, secrets: Record<string, unknown> | undefined, seal: Seal): Promise<void> {
  const secretValues = secrets === undefined ? undefined : Object.keys(secrets).length > 0 ? seal(id, secrets) : null;
  await getDb().schedule.update({ where: { id }, data: { ...columns(data), secretValues } });
}

export async function findSchedule(id: number): Promise<ScheduleRow | null> {
  const row = await getDb().schedule.findUnique({ where: { id } });
  return row ? toRow(row) : null;
}

/** The owner's schedules, or everyone's (null), oldest first. */
export async function listSchedules(ownerId: string | null): Promise<ScheduleRow[]> {
  const rows = await getDb().schedule.findMany({ where: ownerId === null ? {} : { ownerId }, orderBy: { id: "asc" } });
  return rows.map(toRow);
}

/** How many enabled schedules the owner has (a non-admin's are limited: server/schedules/limits.ts). */
export async function countEnabledSchedules(ownerId: string): Promise<number> {
  return getDb().schedule.count({ where: { ownerId, enabled: true } });
}

export async function deleteSchedule(id: number): Promise<boolean> {
  return (await getDb().schedule.deleteMany({ where: { id } })).count === 1;
}

/** Usernames of these user ids (an owner whose account is gone is missing). */
export async function usernamesOf(ids: readonly string[]): Promise<Map<string, string>> {
  const users = await getDb().user.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, username: true } });
  return new Map(users.map((user) => [user.id, user.username]));
}

export async function findUserById(id: string): Promise<PublicUser | null> {
  const user = await getDb().user.findUnique({ where: { id }, select: { id: true, username: true, role: true } });
  return user;
}

/** Enabled schedules whose tick is due (the [enabled, nextRunAt] index), earliest first. */
export async function findDueSchedules(now: Date, limit: number): Promise<ScheduleRow[]> {
  const rows = await getDb().schedule.findMany({
    where: { enabled: true, nextRunAt: { lte: now } },
    orderBy: { nextRunAt: "asc" },
    take: limit,
  });
  return rows.map(toRow);
}

/**
 * Claims the tick `due` of a schedule by moving it to the next one: true for the one caller
 * (of all nodes) whose update matched, false when another node claimed it first, or the
 * schedule was paused, changed or deleted meanwhile.
 */
export async function claimTick(id: number, due: Date, next: Date | null): Promise<boolean> {
  const { count } = await getDb().schedule.updateMany({ where: { id, enabled: true, nextRunAt: due }, data: { nextRunAt: next } });
  return count === 1;
}

export async function recordScheduleRun(id: number, jobId: number, at: Date): Promise<void> {
  await getDb().schedule.updateMany({ where: { id }, data: { lastRunAt: at, lastJobId: jobId } });
}

/** Pauses a schedule, saying why; false when it was already paused or is gone. */
export async function pauseSchedule(id: number, reason: string | null): Promise<boolean> {
  const { count } = await getDb().schedule.updateMany({ where: { id, enabled: true }, data: { enabled: false, pausedReason: reason, nextRunAt: null } });
  return count === 1;
}

const UNFINISHED: JobStatus[] = ["approval", "queued", "running"];

/** A job of the schedule still waiting for approval, queued or running, if any (the latest). */
export async function findUnfinishedScheduleJob(scheduleId: number): Promise<number | null> {
  const job = await getDb().job.findFirst({
    where: { scheduleId, status: { in: UNFINISHED } },
    orderBy: { id: "desc" },
    select: { id: true },
  });
  return job?.id ?? null;
}
