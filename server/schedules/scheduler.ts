/**
 * The scheduler: every app node looks for due schedules every second (`enabled AND nextRunAt <=
 * now`) and claims each tick with one conditional update that moves nextRunAt to the next run
 * after now (server/data/schedules.ts, claimTick). With several nodes on one PostgreSQL, only the
 * node whose update matched launches: exactly one job per tick. A tick missed while no node ran
 * (downtime) is run once, not once per missed tick, since the next run is counted from now.
 *
 * The launch is launchJob's, as the schedule's owner, so a tick is checked exactly as a launch
 * from the form page is. What the schedule itself can no longer do (values that no longer pass,
 * a form gone or one its owner may not launch, an owner gone) pauses it with the reason; a
 * problem of the moment (no runner approved yet, a choices source down) fails that tick only,
 * recorded as a failed `job.launch`.
 */
import { recordAudit } from "../audit/record";
import { DomainError } from "../errors";
import {
  claimTick,
  findDueSchedules,
  findUnfinishedScheduleJob,
  pauseSchedule,
  recordScheduleRun,
  type ScheduleRow,
} from "../data/schedules";
import { launchJob } from "../jobs/launch";
import type { JobLifecycle } from "../jobs/lifecycle";
import { loggerFor } from "../logging/logger";
import { nextRun } from "./cron";
import { launchValuesOf, ownerViewer } from "./schedules";

const log = loggerFor({ component: "scheduler" });

/** How often each node looks for due ticks: a job starts within about this much of its tick. */
export const SCHEDULER_INTERVAL_MS = 1000;
/** Due schedules handled per look; more wait for the next look. */
const BATCH = 50;

export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(private readonly jobs: JobLifecycle) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), SCHEDULER_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One look: claims and runs every due tick this node wins. Never throws (a loop must go on). */
  async tick(now = new Date()): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (const schedule of await findDueSchedules(now, BATCH)) await this.runTick(schedule, now);
    } catch (error) {
      log().error({ err: error }, "looking for due schedules failed");
    } finally {
      this.running = false;
    }
  }

  private async runTick(schedule: ScheduleRow, now: Date): Promise<void> {
    const due = schedule.nextRunAt!;
    try {
      if (!(await claimTick(schedule.id, due, nextRun(schedule.cron, schedule.timezone, now)))) return;
      if (schedule.overlap !== "queue") {
        const going = await findUnfinishedScheduleJob(schedule.id);
        if (going !== null) {
          await recordAudit({
            actor: null,
            action: "schedule.skip",
            target: `schedule:${schedule.id}`,
            outcome: "success",
            details: { form: schedule.formName, due: due.toISOString(), job: going },
          });
          return;
        }
      }
      const owner = await ownerViewer(schedule);
      if (!owner) return await this.pause(schedule, "its owner's account no longer exists");
      const values = openValues(schedule);
      if (!values)
        return await this.pause(schedule, "its password values cannot be opened (was ENCRYPTION_SECRET changed?): save them again");
      const id = await launchJob(this.jobs, owner, schedule.formName, values, schedule.runOptions ?? undefined, {
        scheduleId: schedule.id,
        ...(schedule.mode === "drift" ? { drift: true } : {}),
      });
      await recordScheduleRun(schedule.id, id, now);
      log().info(`schedule ${schedule.id}: launched job ${id} (${schedule.formName}, tick ${due.toISOString()})`);
    } catch (error) {
      if (error instanceof DomainError && (error.code === "validation_failed" || error.code === "not_found")) {
        const reason =
          error.code === "not_found"
            ? `form "${schedule.formName}" no longer exists or its owner may no longer launch it`
            : `its values no longer pass the form's rules: ${error.message}`;
        return this.pause(schedule, reason);
      }
      log().error({ err: error }, `schedule ${schedule.id}: its tick ${due.toISOString()} failed`);
    }
  }

  private async pause(schedule: ScheduleRow, reason: string): Promise<void> {
    if (!(await pauseSchedule(schedule.id, reason))) return;
    log().warn(`schedule ${schedule.id} paused: ${reason}`);
    await recordAudit({
      actor: null,
      action: "schedule.pause",
      target: `schedule:${schedule.id}`,
      outcome: "success",
      details: { form: schedule.formName, reason },
    });
  }
}

function openValues(schedule: ScheduleRow): Record<string, unknown> | null {
  try {
    return launchValuesOf(schedule);
  } catch {
    return null;
  }
}
