/** Contracts of schedules (server/schedules/schedules.ts). */
import { z } from "zod";
import { newScheduleSchema, OVERLAPS, SCHEDULE_MODES, scheduleChangeSchema } from "../../schedules/schedules";
import { endpoint } from "../contract";

const idParams = z.object({ id: z.string().meta({ description: "a schedule id: decimal digits, no leading zero (anything else: 404)" }) });

export const scheduleSchema = z
  .object({
    id: z.number().int().positive(),
    form: z.string(),
    values: z.record(z.string(), z.unknown()).meta({ description: "as checked when saved; password values show as ********" }),
    options: z.record(z.string(), z.unknown()).meta({ description: "run options of every job it launches" }),
    cron: z.string().meta({ description: "5 fields (minute hour day month weekday) or 6 with seconds first" }),
    timezone: z.string().meta({ description: "IANA time zone the cron is read in" }),
    overlap: z
      .enum(OVERLAPS)
      .meta({ description: "when its previous job still waits or runs at a tick: skip the tick, or queue another job" }),
    mode: z.enum(SCHEDULE_MODES).meta({
      description:
        "run: each tick launches the form as saved; drift: each tick launches a drift check (--check --diff, whatever the form offers at launch), and hosts it finds changes on are marked drifted (GET /api/hosts/NAME) until a check finds none",
    }),
    enabled: z.boolean(),
    pausedReason: z.string().nullable().meta({ description: "why Playform paused it (values no longer valid, form gone, owner's rights)" }),
    owner: z.string().nullable().meta({ description: "whose rights its jobs run with (null: that account is gone)" }),
    nextRuns: z.array(z.string()).meta({ description: "the next 5 run times (ISO 8601); none while paused" }),
    lastRunAt: z.string().nullable(),
    lastJobId: z.number().int().positive().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Schedule" });

export const createSchedule = endpoint({
  method: "post",
  path: "/api/schedules",
  summary: "Schedule a form: its values launched on a cron, as you",
  description:
    "Only for a form you may launch. Values and options are checked as a launch checks them; `cron` has 5 fields or 6 with seconds, read in `timezone` (default UTC); `overlap` (default skip) says what a tick does while the previous job still waits or runs; `mode` (default run) `drift` makes each tick a drift check of the form's hosts.",
  tags: ["schedules"],
  access: "user",
  body: { schema: newScheduleSchema },
  responses: { 201: { description: "saved; `nextRuns` are its next 5 run times", schema: scheduleSchema } },
  errors: {
    404: "no such form, or one the caller may not launch",
    422: "bad values or options, a bad cron or an unknown time zone (named in `fields`)",
  },
});

export const listSchedules = endpoint({
  method: "get",
  path: "/api/schedules",
  summary: "Your schedules (every schedule for admins)",
  tags: ["schedules"],
  access: "user",
  responses: { 200: { description: "oldest first", schema: z.object({ schedules: z.array(scheduleSchema) }) } },
});

export const getSchedule = endpoint({
  method: "get",
  path: "/api/schedules/[id]",
  summary: "One schedule, with its next run times",
  tags: ["schedules"],
  access: "user",
  params: idParams,
  responses: { 200: { description: "the schedule", schema: z.object({ schedule: scheduleSchema }) } },
  errors: { 404: "no such schedule, or another user's (non-admins)" },
});

export const updateSchedule = endpoint({
  method: "patch",
  path: "/api/schedules/[id]",
  summary: "Change a schedule: enable or pause it, its cron, time zone, overlap, mode, values or options",
  description:
    "Values and options are checked again, with the owner's rights, when given and when the schedule is enabled again; a password field left out or sent as ******** keeps its stored value. Enabling clears `pausedReason`.",
  tags: ["schedules"],
  access: "user",
  params: idParams,
  body: { schema: scheduleChangeSchema },
  responses: { 200: { description: "the schedule as saved", schema: z.object({ schedule: scheduleSchema }) } },
  errors: {
    404: "no such schedule, another user's (non-admins), or its form is gone or its owner may no longer launch it",
    409: "its owner's account is gone",
    422: "bad values, options, cron or time zone (named in `fields`)",
  },
});

export const deleteSchedule = endpoint({
  method: "delete",
  path: "/api/schedules/[id]",
  summary: "Delete a schedule (its jobs stay)",
  tags: ["schedules"],
  access: "user",
  params: idParams,
  responses: { 204: { description: "deleted" } },
  errors: { 404: "no such schedule, or another user's (non-admins)" },
});
