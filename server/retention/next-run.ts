/** When this node runs retention next (server/retention/schedule.ts sets it). */
// On globalThis so GET /api/retention (Next's bundle) sees the custom server's schedule.
const KEY = Symbol.for("playform.retention.next");
const holder = globalThis as typeof globalThis & { [KEY]?: Date | null };

/** When this node runs retention next; null when no schedule runs here. */
export function scheduledRetentionRun(): Date | null {
  return holder[KEY] ?? null;
}

export function setScheduledRetentionRun(at: Date | null): void {
  holder[KEY] = at;
}
