/**
 * The daily retention run of an app node (started by the custom server when a retention
 * setting is on). Every node keeps the schedule; the run itself takes the retention lock, so
 * with several nodes one cleans and the others find the lock held and skip that day's turn.
 */
import { loggerFor } from "../logging/logger";
import { runRetention } from "./run";
import { setScheduledRetentionRun } from "./next-run";
import { retentionEnabled, type RetentionSettings } from "./settings";

const log = loggerFor({ component: "retention" });

/** Without PLAYFORM_RETENTION_HOUR: the first run this long after start, then every day. */
export const FIRST_RUN_DELAY_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/** When the next daily run is due after `now`: the next `hour`:00 UTC, or `now + day` without an hour. */
export function nextRetentionRun(settings: Pick<RetentionSettings, "hour">, now: Date, first: boolean): Date {
  if (settings.hour === null) return new Date(now.getTime() + (first ? FIRST_RUN_DELAY_MS : DAY_MS));
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), settings.hour));
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next;
}

/** Starts the daily run; returns its stop. Does nothing while every setting is off. */
export function startRetentionSchedule(settings: RetentionSettings): () => void {
  if (!retentionEnabled(settings)) return () => undefined;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const plan = (first: boolean) => {
    const at = nextRetentionRun(settings, new Date(), first);
    setScheduledRetentionRun(at);
    timer = setTimeout(tick, Math.max(0, at.getTime() - Date.now()));
    timer.unref();
  };
  const tick = () => {
    runRetention({ settings })
      .then((report) => {
        if (!report) log().info("retention: another run holds the lock; skipped");
      })
      .catch((error: unknown) => log().error({ err: error }, "retention run failed"))
      .finally(() => {
        if (!stopped) plan(false);
      });
  };
  plan(true);
  return () => {
    stopped = true;
    setScheduledRetentionRun(null);
    if (timer) clearTimeout(timer);
  };
}
