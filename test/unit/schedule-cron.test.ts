import { describe, expect, it } from "vitest";
import { cronProblems, nextRun, nextRuns } from "../../server/schedules/cron";

const iso = (dates: Date[]) => dates.map((date) => date.toISOString());

describe("next run times", () => {
  it("counts 5 fields to the minute, strictly after the given time", () => {
    expect(iso(nextRuns("*/15 * * * *", "UTC", new Date("2026-06-01T10:07:30Z")))).toEqual([
      "2026-06-01T10:15:00.000Z",
      "2026-06-01T10:30:00.000Z",
      "2026-06-01T10:45:00.000Z",
      "2026-06-01T11:00:00.000Z",
      "2026-06-01T11:15:00.000Z",
    ]);
    expect(nextRun("0 9 * * *", "UTC", new Date("2026-06-01T09:00:00Z"))?.toISOString()).toBe("2026-06-02T09:00:00.000Z");
  });

  it("reads a sixth leading field as seconds", () => {
    expect(iso(nextRuns("*/2 * * * * *", "UTC", new Date("2026-06-01T10:00:00.500Z"), 3))).toEqual([
      "2026-06-01T10:00:02.000Z",
      "2026-06-01T10:00:04.000Z",
      "2026-06-01T10:00:06.000Z",
    ]);
    expect(iso(nextRuns("30 0 12 * * 1", "UTC", new Date("2026-06-01T00:00:00Z"), 2))).toEqual([
      "2026-06-01T12:00:30.000Z",
      "2026-06-08T12:00:30.000Z",
    ]);
  });

  it("keeps local time in the schedule's zone across a daylight saving change", () => {
    // Europe/Paris moves from UTC+1 to UTC+2 on 2026-03-29: 9:00 local is 08:00Z, then 07:00Z.
    expect(iso(nextRuns("0 9 * * *", "Europe/Paris", new Date("2026-03-27T12:00:00Z"), 3))).toEqual([
      "2026-03-28T08:00:00.000Z",
      "2026-03-29T07:00:00.000Z",
      "2026-03-30T07:00:00.000Z",
    ]);
    // New York falls back on 2026-11-01: 9:00 local is 13:00Z, then 14:00Z.
    expect(iso(nextRuns("0 9 * * *", "America/New_York", new Date("2026-10-31T00:00:00Z"), 2))).toEqual([
      "2026-10-31T13:00:00.000Z",
      "2026-11-01T14:00:00.000Z",
    ]);
  });

  it("runs a local time the spring change skips once, at the end of the gap", () => {
    // 02:30 does not exist in Paris on 2026-03-29 (02:00 → 03:00).
    const runs = iso(nextRuns("30 2 * * *", "Europe/Paris", new Date("2026-03-28T12:00:00Z"), 2));
    expect(runs[0]).toBe("2026-03-29T01:00:00.000Z");
    expect(runs[1]).toBe("2026-03-30T00:30:00.000Z");
  });
});

describe("cron and time zone problems", () => {
  it("accepts 5 and 6 fields in a known zone", () => {
    expect(cronProblems("0 6 * * 1-5", "UTC")).toBeNull();
    expect(cronProblems("*/2 * * * * *", "Europe/Paris")).toBeNull();
  });

  it("names the cron field with a message saying what is wrong", () => {
    expect(cronProblems("* * * *", "UTC")).toEqual({
      cron: 'must have 5 fields (minute hour day month weekday) or 6 with seconds first; "* * * *" has 4',
    });
    expect(cronProblems("0 0 1 1 * 2030", "UTC")?.cron).toMatch(/Invalid value for day-of-week|not a valid cron expression/);
    expect(cronProblems("@daily", "UTC")?.cron).toMatch(/must have 5 fields/);
    expect(cronProblems("61 * * * *", "UTC")).toEqual({ cron: "is not a valid cron expression: Invalid value for minute: 61" });
    expect(cronProblems("0 0 31 2 *", "UTC")).toEqual({ cron: "never runs: no date matches it" });
  });

  it("names an unknown time zone, and both fields when both are wrong", () => {
    expect(cronProblems("0 6 * * *", "Mars/Olympus")).toEqual({
      timezone: '"Mars/Olympus" is not a known IANA time zone (e.g. UTC, Europe/Paris)',
    });
    expect(Object.keys(cronProblems("nope", "Nowhere/City") ?? {}).sort()).toEqual(["cron", "timezone"]);
  });
});

describe("a schedule's body", () => {
  it("defaults the time zone, overlap, mode and enabled, and names bad keys", async () => {
    const { newScheduleSchema, scheduleChangeSchema } = await import("../../server/schedules/schedules");
    expect(newScheduleSchema.parse({ form: "f", cron: "0 6 * * *" })).toEqual({
      form: "f",
      values: {},
      cron: "0 6 * * *",
      timezone: "UTC",
      overlap: "skip",
      mode: "run",
      enabled: true,
    });
    const bad = newScheduleSchema.safeParse({ form: "f", cron: "", overlap: "later", mode: "watch", enabled: "yes" });
    expect(bad.success).toBe(false);
    const messages = Object.fromEntries(bad.error!.issues.map((issue) => [issue.path.join("."), issue.message]));
    expect(messages).toEqual({
      cron: "is required",
      overlap: 'must be "skip" or "queue"',
      mode: 'must be "run" or "drift"',
      enabled: "must be true or false",
    });
    expect(scheduleChangeSchema.safeParse({ owner: "someone" }).success).toBe(false);
  });
});

describe("the shortest gap between a cron's coming runs (the limit of non-admins' schedules)", () => {
  const after = new Date("2026-06-01T10:07:30Z");
  it("measures every second, every 30 s, a minute and a day", async () => {
    const { minimumGapSeconds } = await import("../../server/schedules/cron");
    expect(minimumGapSeconds("* * * * * *", "UTC", after)).toBe(1);
    expect(minimumGapSeconds("*/30 * * * * *", "UTC", after)).toBe(30);
    expect(minimumGapSeconds("* * * * *", "UTC", after)).toBe(60);
    expect(minimumGapSeconds("0 9 * * *", "Europe/Paris", after)).toBe(24 * 3600);
  });

  it("finds a tight pair among wide gaps: twice in a row once an hour, across midnight", async () => {
    const { minimumGapSeconds } = await import("../../server/schedules/cron");
    expect(minimumGapSeconds("0,5 0 * * * *", "UTC", after)).toBe(5);
    expect(minimumGapSeconds("59 23,0 * * *", "UTC", after)).toBe(3600);
    expect(minimumGapSeconds("0,59 0,23 * * *", "UTC", after)).toBe(60);
  });

  it("reads the limits from the environment, 60 s and 20 schedules by default, and names a bad value", async () => {
    const { scheduleLimits } = await import("../../server/schedules/limits");
    expect(scheduleLimits({})).toEqual({ minSeconds: 60, perUser: 20 });
    expect(scheduleLimits({ PLAYFORM_SCHEDULE_MIN_SECONDS: "300", PLAYFORM_SCHEDULES_PER_USER: " 3 " })).toEqual({
      minSeconds: 300,
      perUser: 3,
    });
    const { loadAppConfig } = await import("../../server/config");
    expect(() => loadAppConfig({ PLAYFORM_SCHEDULE_MIN_SECONDS: "0" })).toThrow(/PLAYFORM_SCHEDULE_MIN_SECONDS: must be at least 1/);
    expect(() => loadAppConfig({ PLAYFORM_SCHEDULES_PER_USER: "many" })).toThrow(/PLAYFORM_SCHEDULES_PER_USER: must be a whole number/);
  });
});
