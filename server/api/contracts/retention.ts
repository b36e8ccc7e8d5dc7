/** Contracts of retention (docs/operations.md, "Retention"; docs/api.md, "Retention"; server/api/contract.ts). */
import { z } from "zod";
import { endpoint } from "../contract";

const count = z.number().int().nonnegative();

export const retentionReportSchema = z
  .object({
    startedAt: z.string(),
    finishedAt: z.string(),
    durationMs: count,
    jobs: count.meta({ description: "jobs whose output was removed" }),
    chunks: count.meta({ description: "output chunks deleted" }),
    markers: count.meta({ description: "task markers deleted" }),
    auditEvents: count.meta({ description: "audit events deleted" }),
    uploadFiles: count.meta({ description: "uploaded files removed with their jobs" }),
    failedJobs: count.meta({ description: "jobs skipped because their recap could not be computed (their output stays)" }),
    largestStatement: count.meta({ description: "the most rows one delete statement removed" }),
  })
  .meta({ id: "RetentionReport" });

const setting = z.number().int().nullable();

export const retentionStatusSchema = z.object({
  settings: z.object({
    days: setting.meta({ description: "PLAYFORM_RETENTION_DAYS" }),
    keepPerForm: setting.meta({ description: "PLAYFORM_RETENTION_KEEP_PER_FORM" }),
    auditDays: setting.meta({ description: "PLAYFORM_AUDIT_RETENTION_DAYS" }),
    hour: setting.meta({ description: "PLAYFORM_RETENTION_HOUR (UTC)" }),
    enabled: z.boolean(),
  }),
  lastRun: retentionReportSchema
    .extend({ actor: z.string().nullable().meta({ description: "the admin who asked; null for the daily run" }) })
    .nullable(),
  pending: z.object({
    jobs: count.meta({ description: "jobs whose output a run now would remove" }),
    auditEvents: count.meta({ description: "audit events a run now would delete" }),
  }),
  nextRunAt: z.string().nullable().meta({ description: "when this node runs it next; null when no setting is on" }),
});

export const getRetention = endpoint({
  method: "get",
  path: "/api/retention",
  summary: "Retention: the settings, the last run and what a run now would clean",
  tags: ["retention"],
  access: "admin",
  responses: {
    200: { description: "the settings, the last run (null before the first) and the counts of a run now", schema: retentionStatusSchema },
  },
});

export const runRetention = endpoint({
  method: "post",
  path: "/api/retention/run",
  summary: "Run retention now with the current settings",
  tags: ["retention"],
  access: "admin",
  responses: { 200: { description: "what the run removed", schema: z.object({ report: retentionReportSchema }) } },
  errors: { 409: "a run is under way already (on this node or another)" },
});
