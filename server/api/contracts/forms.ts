/** Contracts of the form catalog and the analyses across a form's runs (server/api/contract.ts). */
import { z } from "zod";
import { REPORT_MAX_JOBS, REPORT_MIN_JOBS } from "../../jobs/report";
import { endpoint } from "../contract";
import { jobIdListParam } from "../id-list";
import { queryInt } from "../route";

const fieldSchema = z.looseObject({
  name: z.string(),
  label: z.string(),
  type: z.enum([
    "text",
    "textarea",
    "password",
    "number",
    "checkbox",
    "select",
    "multiselect",
    "date",
    "datetime",
    "table",
    "file",
    "hosts",
  ]),
  required: z.boolean(),
  /** hosts fields: the inventory's hosts or groups, as a runner lists them (GET /api/forms/NAME only). */
  choices: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
  /** hosts fields: why they have no choices now (no runner connected to list the inventory, it does not parse). */
  choicesError: z.string().optional(),
});

const formSummarySchema = z.looseObject({
  name: z.string(),
  title: z.string(),
  description: z.string().nullable().optional(),
  category: z.string().nullable().optional(),
  fields: z.array(fieldSchema),
});

const formSchema = formSummarySchema
  .extend({
    playbook: z.string(),
    launchOptions: z.array(z.string()),
    runDefaults: z.looseObject({}),
    requiresApproval: z.boolean(),
  })
  .meta({ id: "Form" });

const nameParams = z.object({ name: z.string().meta({ description: "the form's name" }) });

export const listForms = endpoint({
  method: "get",
  path: "/api/forms",
  summary: "Every form, by title",
  tags: ["forms"],
  access: "user",
  responses: { 200: { description: "the forms", schema: z.object({ forms: z.array(formSchema) }) } },
});

const runnerChoiceSchema = z.object({
  name: z.string(),
  status: z.string().meta({ description: "approved (takes jobs), pending, rejected, revoked, or unknown" }),
  connected: z.boolean().meta({ description: "an instance is connected now (a job for a runner that is away waits in the queue)" }),
});

export const getForm = endpoint({
  method: "get",
  path: "/api/forms/[name]",
  summary: "One form: its fields, launch options and run defaults, and the runners the launcher may choose",
  tags: ["forms"],
  access: "user",
  params: nameParams,
  responses: {
    200: {
      description: "the form; `runners`: its choice of runners (`runners:` in form.yaml), null when it offers none",
      schema: z.object({ form: formSchema.extend({ runners: z.array(runnerChoiceSchema).nullable() }) }),
    },
  },
});

export const importForms = endpoint({
  method: "post",
  path: "/api/forms/import",
  summary: "Re-read the forms folder after an edit, without a restart",
  tags: ["forms"],
  access: "admin",
  responses: {
    200: {
      description: "what was imported, and why other forms were not",
      schema: z.object({ folder: z.string(), imported: z.array(z.string()), errors: z.array(z.string()) }),
    },
  },
});

export const trendQuerySchema = z.object({ last: queryInt(1, 100).default(10).meta({ description: "how many finished runs, 1..100" }) });

const recapStatusSchema = z.enum(["successful", "failed", "incomplete", "plan"]);

export const formTrend = endpoint({
  method: "get",
  path: "/api/forms/[name]/trend",
  summary:
    "Across the last N finished full runs (the form's own settings: no tags, limit or check mode chosen at launch): never-idempotent tasks, durations, host failure rates",
  tags: ["forms", "analysis"],
  access: "user",
  params: nameParams,
  query: trendQuerySchema,
  responses: {
    200: {
      description: "the trend",
      schema: z.object({
        form: z.string(),
        completed_runs: z.number().int(),
        never_idempotent: z.array(z.string()),
        durations: z.array(
          z.object({
            id: z.string(),
            finished_at: z.string().nullable(),
            status: recapStatusSchema,
            elapsed_sec: z.number().nullable(),
            job_sec: z.number().nullable(),
          }),
        ),
        hosts: z.array(z.object({ host: z.string(), runs: z.number().int(), failed_runs: z.number().int(), failure_rate: z.number() })),
      }),
    },
  },
});

export const idempotenceQuerySchema = z.object({
  last: queryInt(1, 200).default(20).meta({ description: "how many finished runs, 1..200" }),
  format: z.enum(["csv", "json"], { message: "must be csv or json" }).optional().meta({ description: "answer a file to download" }),
});

const runRefSchema = z.object({ id: z.string(), finished_at: z.string().nullable() });

const idempotenceReportSchema = z.object({
  form: z.string(),
  last: z.number().int(),
  runs: z.array(runRefSchema.extend({ source: z.enum(["events", "recap"]), environment: z.string().nullable() })),
  environments: z
    .array(z.string())
    .meta({ description: "the environments the runs ran in, when more than one (else []): a change may come from the environment" }),
  complete_runs: z.number().int(),
  skipped_incomplete: z.number().int(),
  tasks_never_changed: z.number().int(),
  tasks: z.array(
    z.object({
      play: z.string().nullable(),
      play_occurrence: z.number().int().nullable(),
      task: z.string(),
      runs_ran: z.number().int(),
      runs_changed: z.number().int(),
      change_rate: z.number(),
      hosts: z.array(z.object({ host: z.string(), runs_changed: z.number().int() })).nullable(),
      hosts_unknown_runs: z.number().int(),
      first_changed_run: runRefSchema,
      last_changed_run: runRefSchema,
      changed_in_latest: z.boolean(),
    }),
  ),
});

export const formIdempotence = endpoint({
  method: "get",
  path: "/api/forms/[name]/idempotence",
  summary:
    "The idempotence report over the last N finished full runs (no tags, limit or check mode chosen at launch; JSON, or a CSV/JSON download)",
  tags: ["forms", "analysis"],
  access: "user",
  params: nameParams,
  query: idempotenceQuerySchema,
  responses: {
    200: {
      description: "the report; with `format`, the same as a download (Content-Disposition: attachment)",
      alternatives: [{ mediaType: "application/json", schema: idempotenceReportSchema }, { mediaType: "text/csv" }],
    },
  },
});

export const reportQuerySchema = z.object({
  jobs: jobIdListParam("jobs", REPORT_MAX_JOBS).meta({
    description: `${REPORT_MIN_JOBS} to ${REPORT_MAX_JOBS} finished runs of the form, comma-separated, in the order the report shows them`,
  }),
  format: z
    .enum(["md", "csv", "json"], { message: "must be md, csv or json" })
    .optional()
    .meta({ description: "answer a file to download" }),
});

const reportCountsSchema = z.object({
  ok: z.number().int(),
  changed: z.number().int(),
  unreachable: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  rescued: z.number().int(),
  ignored: z.number().int(),
});

const reportSchema = z.object({
  form: z.string(),
  jobs: z.array(
    z.object({
      id: z.number().int(),
      status: z.string(),
      finishedAt: z.string().nullable(),
      options: z
        .looseObject({})
        .nullable()
        .meta({ description: "how it was run, as in compare's first/second; null before plans were kept" }),
      run: z.string().meta({ description: 'the same in a few words: "full run", "--tags runtime --check, environment k8s"' }),
      playbook_sec: z.number().nullable(),
    }),
  ),
  tasks: z.array(
    z.object({
      play: z.string().nullable(),
      task: z.string(),
      changed: z
        .array(z.boolean().nullable())
        .meta({ description: "per run: changed on some host, ran unchanged, or null (did not run, or not known)" }),
      sec: z.array(z.number().nullable()),
    }),
  ),
  hosts: z.array(z.object({ host: z.string(), runs: z.array(reportCountsSchema.nullable()) })),
  artifacts: z.array(
    z.object({ key: z.string(), values: z.array(z.unknown()).meta({ description: "per run: set_stats' value, or null" }) }),
  ),
});

export const formReport = endpoint({
  method: "get",
  path: "/api/forms/[name]/report",
  summary:
    "A report across 2 to 20 runs of a form: per task changed and seconds, per host its recap counts, per artifact its value (JSON, Markdown or CSV)",
  description:
    "For those who may see the form's runs; each job must be a finished run of this form the caller may see (docs/api.md, Report across runs).",
  tags: ["forms", "analysis"],
  access: "user",
  params: nameParams,
  query: reportQuerySchema,
  responses: {
    200: {
      description: "the report; with `format`, the same as a download (Content-Disposition: attachment)",
      alternatives: [{ mediaType: "application/json", schema: reportSchema }, { mediaType: "text/markdown" }, { mediaType: "text/csv" }],
    },
  },
  errors: {
    400: "jobs missing or malformed, fewer than 2 or more than 20, named twice, of another form, a preview, or not finished",
    404: "unknown form, one the caller may not see the runs of, or a job the caller may not see",
  },
});

export const choicesBodySchema = z.strictObject({
  values: z
    .record(z.string(), z.unknown())
    .default({})
    .meta({ description: "the form's current values; those the source's URL names fill its {field} placeholders" }),
});

export const fieldChoices = endpoint({
  method: "post",
  path: "/api/forms/[name]/choices/[field]",
  summary: "The current choices of a select or multiselect field with a choice source, fetched by the app",
  description:
    "For those who may launch the form. The source's URL is filled with the values (URL-encoded) and asked with the form's " +
    "credential; answers are cached for the source's cacheSeconds (docs/api.md, Choice sources).",
  tags: ["forms"],
  access: "user",
  params: z.object({
    name: z.string().meta({ description: "the form's name" }),
    field: z.string().meta({ description: "the name of a select or multiselect field with a source" }),
  }),
  body: { schema: choicesBodySchema, optional: true },
  responses: {
    200: {
      description: "the choices, in the source's order",
      schema: z.object({ choices: z.array(z.object({ value: z.string(), label: z.string() })) }),
    },
  },
  errors: {
    404: "unknown form, a form the caller may not launch, or a field without a choice source",
    422: 'a field the URL names is empty ("fill in Region first")',
    502: "the source answered an error status, not JSON, over 5 MiB or over 5000 choices, or could not be reached",
    503: "the source's credential does not exist or is not a secret credential",
    504: "the source did not answer within its timeoutSeconds",
  },
});
