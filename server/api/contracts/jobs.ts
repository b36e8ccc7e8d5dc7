/**
 * Contracts of jobs: launch, the list, one job, its life (abort, approval), its output and the
 * analyses of its run (server/api/contract.ts).
 */
import { z } from "zod";
import { decisionSchema } from "../../jobs/approval";
import { MAX_SEARCH_MATCHES, MAX_WINDOW_LINES } from "../../jobs/output";
import { jobViewSchema, outputChunkSchema } from "../../protocol/ui-messages";
import { endpoint } from "../contract";
import { jobIdListParam } from "../id-list";
import { jobListQuerySchema } from "../job-list-query";
import { queryInt } from "../route";

/**
 * GET /api/jobs's query: checked parameter by parameter (server/api/job-list-query.ts) so
 * every bad one is answered at once as a 422 with `fields`; `status` may be repeated.
 */
export { jobListQuerySchema };

/** The output endpoints of a job whose output retention removed (docs/api.md, "Retention"). */
const OUTPUT_GONE = "the job's output was removed by retention (its recap stays): the message says when";

export const jobSchema = jobViewSchema.meta({ id: "Job" });
const jobAnswer = z.object({ job: jobSchema });

const idParams = z.object({ id: z.string().meta({ description: "a job id: decimal digits, no leading zero (anything else: 404)" }) });

export const launchBodySchema = z.strictObject({
  form: z.string().min(1, "is required"),
  values: z.record(z.string(), z.unknown()).default({}),
  /** Run options the form lets users choose at launch; checked against the form in launchJob. */
  options: z.unknown().optional(),
  /** A runner among the form's `runners:` (docs/forms.md, "Choosing a runner"); absent: the first approved one. */
  runner: z.string().min(1, "must name a runner").max(63).optional(),
});

export const launchJob = endpoint({
  method: "post",
  path: "/api/jobs",
  summary: "Launch a form",
  tags: ["jobs"],
  access: "user",
  body: { schema: launchBodySchema },
  responses: {
    201: { description: "the new job's id", schema: z.object({ id: z.number().int().positive() }) },
    200: {
      description:
        "the `Idempotency-Key` header was sent by the same user with the same request within 24 h: the id of the job that request started (none is started)",
      schema: z.object({ id: z.number().int().positive() }),
    },
  },
  errors: {
    404: "unknown form",
    409: "the form's runner (or none of its `runners`) is approved",
    422: "values, run options or runner the form refuses; an `Idempotency-Key` that is malformed or was used for another launch; `fields` names each",
    // A source field's value is checked against the source's current choices (docs/api.md, Choice sources).
    502: "a choice source the values are checked against answered badly",
    503: "a choice source's credential cannot be used, or a hosts field's inventory cannot be listed now (no runner connected)",
    504: "a choice source the values are checked against did not answer in time",
  },
});

export const relaunchBodySchema = z.strictObject({
  /** Replace the old job's values, key by key; password fields are never copied: give them here. */
  values: z.record(z.string(), z.unknown()).optional(),
  /** Replace the old job's run options, key by key; checked against the form in launchJob. */
  options: z.record(z.string(), z.unknown()).optional(),
});

export const relaunchJob = endpoint({
  method: "post",
  path: "/api/jobs/[id]/relaunch",
  summary: "Run a job again: a new job from its values and run options (password fields given again)",
  tags: ["jobs"],
  access: "user",
  params: idParams,
  body: { schema: relaunchBodySchema, optional: true },
  responses: { 201: { description: "the new job's id (its `relaunchOf` is ID)", schema: z.object({ id: z.number().int().positive() }) } },
  errors: {
    404: "no such job, one the caller may not see, or whose form they may not launch",
    409: "the job is a preview, or its form no longer exists",
    422: "values or run options that fail the form's rules (a password field not given again: is required)",
  },
});

export const listJobs = endpoint({
  method: "get",
  path: "/api/jobs",
  summary: 'One page of the job list (docs/api.md, "The job list")',
  tags: ["jobs"],
  access: "user",
  query: jobListQuerySchema,
  responses: {
    200: {
      description: "a page",
      schema: z.object({ jobs: z.array(jobSchema), nextCursor: z.string().nullable(), prevCursor: z.string().nullable() }),
    },
  },
  errors: { 422: "bad parameters; `fields` names each one" },
});

export const getJob = endpoint({
  method: "get",
  path: "/api/jobs/[id]",
  summary: "One job",
  tags: ["jobs"],
  access: "user",
  params: idParams,
  responses: {
    200: {
      description: "the job, and what the caller may do with it (from its form's `access:` groups)",
      schema: z.object({
        job: jobSchema,
        permissions: z.object({
          approve: z.boolean().meta({ description: "approve or reject it while it waits (admins, the form's approve groups)" }),
          abort: z.boolean().meta({ description: "abort it (its launcher, the form's approvers, admins)" }),
          relaunch: z.boolean().meta({ description: "run it again (its form exists and the caller may launch it)" }),
        }),
      }),
    },
  },
  errors: { 404: "no such job, or one the caller may not see" },
});

export const abortJob = endpoint({
  method: "post",
  path: "/api/jobs/[id]/abort",
  summary: "Abort a job",
  tags: ["jobs"],
  access: "user",
  params: idParams,
  responses: { 202: { description: "abort requested", schema: jobAnswer } },
  errors: { 409: "the job has ended" },
});

const decisionBody = { schema: decisionSchema, optional: true } as const;

export const approveJob = endpoint({
  method: "post",
  path: "/api/jobs/[id]/approve",
  summary: "Approve a job waiting for approval: it joins the queue",
  tags: ["jobs"],
  access: "admin",
  params: idParams,
  body: decisionBody,
  responses: { 200: { description: "the job", schema: jobAnswer } },
  errors: { 409: "the job is not waiting for approval" },
});

export const rejectJob = endpoint({
  method: "post",
  path: "/api/jobs/[id]/reject",
  summary: "Reject a job waiting for approval: it ends rejected",
  tags: ["jobs"],
  access: "admin",
  params: idParams,
  body: decisionBody,
  responses: { 200: { description: "the job", schema: jobAnswer } },
  errors: { 409: "the job is not waiting for approval" },
});

export const outputQuerySchema = z.object({
  after: queryInt(0).default(0).meta({ description: "the last seq already read" }),
  limit: queryInt(1, 5000).default(1000),
});

export const jobOutput = endpoint({
  method: "get",
  path: "/api/jobs/[id]/output",
  summary: "Output chunks after a sequence number",
  tags: ["output"],
  access: "user",
  params: idParams,
  query: outputQuerySchema,
  responses: {
    200: {
      description: "the chunks, in order",
      schema: z.object({ chunks: z.array(outputChunkSchema), lastSeq: z.number().int().nonnegative(), done: z.boolean() }),
    },
  },
  errors: { 410: OUTPUT_GONE },
});

export const linesQuerySchema = z.object({
  from: queryInt(1).optional(),
  count: queryInt(1, MAX_WINDOW_LINES).default(500),
  tail: queryInt(1, MAX_WINDOW_LINES).optional().meta({ description: "the last N lines instead of from/count" }),
});

export const jobLines = endpoint({
  method: "get",
  path: "/api/jobs/[id]/lines",
  summary: "A window of output lines",
  tags: ["output"],
  access: "user",
  params: idParams,
  query: linesQuerySchema,
  responses: {
    200: {
      description: "the lines",
      schema: z.object({
        jobId: z.number().int(),
        from: z.number().int(),
        total: z.number().int(),
        final: z.boolean(),
        ansi: z.string().nullable(),
        lines: z.array(z.object({ n: z.number().int(), stream: z.string(), text: z.string() })),
      }),
    },
  },
  errors: { 410: OUTPUT_GONE },
});

export const logQuerySchema = z.object({
  ansi: z.enum(["0", "1"], { message: "must be 0 (strip colour codes) or 1" }).default("1"),
});

export const jobLog = endpoint({
  method: "get",
  path: "/api/jobs/[id]/log",
  summary: "The whole output as text, streamed (a download)",
  tags: ["output"],
  access: "user",
  params: idParams,
  query: logQuerySchema,
  responses: { 200: { description: "the stored text in order", mediaType: "text/plain" } },
  errors: { 410: OUTPUT_GONE },
});

export const searchQuerySchema = z.object({
  q: z.string().min(1, "give the text to search for (1 to 200 characters)").max(200, "at most 200 characters"),
  limit: queryInt(1, MAX_SEARCH_MATCHES).default(MAX_SEARCH_MATCHES),
  case: z.enum(["0", "1"], { message: "must be 0 (ignore case) or 1" }).default("0"),
});

export const searchJob = endpoint({
  method: "get",
  path: "/api/jobs/[id]/search",
  summary: "Lines containing a text",
  tags: ["output"],
  access: "user",
  params: idParams,
  query: searchQuerySchema,
  responses: {
    200: { description: "line numbers", schema: z.object({ q: z.string(), matches: z.array(z.number().int()), truncated: z.boolean() }) },
  },
  errors: { 410: OUTPUT_GONE },
});

export const jobTasks = endpoint({
  method: "get",
  path: "/api/jobs/[id]/tasks",
  summary: "Where each play, task, handler and the PLAY RECAP start in the output",
  tags: ["output"],
  access: "user",
  params: idParams,
  responses: {
    200: {
      description: "the markers, in line order",
      schema: z.object({
        tasks: z.array(
          z.object({ line: z.number().int(), kind: z.enum(["play", "task", "handler", "recap"]), name: z.string(), play: z.string() }),
        ),
      }),
    },
  },
  errors: { 410: OUTPUT_GONE },
});

const hostRowSchema = z.object({
  host: z.string(),
  ok: z.number(),
  changed: z.number(),
  unreachable: z.number(),
  failed: z.number(),
  skipped: z.number(),
  rescued: z.number(),
  ignored: z.number(),
});
const taskTimingSchema = z.object({ task: z.string(), seconds: z.number() });

/** The recap JSON of docs/recap.md (server/recap/types.ts). */
export const recapSchema = z
  .object({
    plays: z.array(z.object({ number: z.number().int(), name: z.string(), hosts: z.string().nullable() })),
    hosts: z.array(hostRowSchema),
    elapsed_sec: z.number().nullable(),
    slowest_tasks: z.array(taskTimingSchema),
    changed_tasks: z.array(z.string()),
    ignored_failures: z.array(z.string()),
    failed_tasks: z.array(z.string()),
    unreachable_hosts: z.array(z.string()),
    status: z.enum(["successful", "failed", "incomplete", "plan"]),
    tasks_per_play: z.array(z.number().int()).optional(),
    partial_hosts: z.array(hostRowSchema).optional(),
    partial_elapsed_sec: z.number().nullable().optional(),
    partial_slowest_tasks: z.array(taskTimingSchema).optional(),
    changed_results: z.looseObject({}).optional(),
    playbook_sec: z.number().nullable().optional(),
    output_truncated: z.literal(true).optional().meta({ description: "the job's output was cut at PROCESS_MAX_BUFFER: partial" }),
  })
  .meta({ id: "Recap" });

export const recapQuerySchema = z.object({ source: z.enum(["events", "text"]).optional().meta({ description: "force one source" }) });

export const jobRecap = endpoint({
  method: "get",
  path: "/api/jobs/[id]/recap",
  summary: "The recap of a job's run (X-Recap-Source says from events or text)",
  tags: ["analysis"],
  access: "user",
  params: idParams,
  query: recapQuerySchema,
  responses: { 200: { description: "the recap", schema: recapSchema } },
  errors: {
    404: "no such job (or one the caller may not see); with `source=events`, a job without structured events",
    410: "with `source=events|text`: the job's output was removed by retention, only the cached recap is left (ask without `source`)",
  },
});

const countsSchema = z.record(z.string(), z.number());
export const runOptionsViewSchema = z
  .object({
    playbook: z.string(),
    tags: z.array(z.string()),
    skipTags: z.array(z.string()),
    limit: z.string().nullable(),
    check: z.boolean(),
    diff: z.boolean(),
    verbosity: z.number().int(),
    environment: z.string().nullable(),
    valuesHash: z.string().meta({ description: "sha256 of the form values (password values masked): equal values, equal hash" }),
  })
  .meta({ description: "how the run was run; playbook, tags, skipTags, limit and check decide which runs it is comparable with" });

const jobRefSchema = z.object({
  id: z.number().int(),
  status: z.string(),
  finishedAt: z.string().nullable(),
  options: runOptionsViewSchema.nullable().meta({ description: "null for a job launched before plans were kept" }),
});

const optionDifferenceSchema = z.object({
  option: z.enum(["playbook", "tags", "skipTags", "limit", "check", "diff", "verbosity", "environment", "valuesHash"]),
  first: z.unknown(),
  second: z.unknown(),
});

export const compareQuerySchema = z.object({
  optional: z.enum(["0", "1"]).optional().meta({ description: "1: no previous run answers 200 {previous: null} instead of 404" }),
});

export const compareJobs = endpoint({
  method: "get",
  path: "/api/jobs/[id]/compare/[otherId]",
  summary:
    "Compare two runs (OTHER = `previous`: the previous complete run of the same form with the same playbook, tags, skip tags, limit and check mode)",
  tags: ["analysis"],
  access: "user",
  params: z.object({ id: z.string(), otherId: z.string().meta({ description: "a job id, or `previous`" }) }),
  query: compareQuerySchema,
  responses: {
    200: {
      description: "the comparison, or `{previous: null}` with optional=1 when there is no previous run",
      schema: z.union([
        z.object({
          first: jobRefSchema,
          second: jobRefSchema,
          differences: z.array(optionDifferenceSchema).meta({ description: "the run options in which the two runs differ" }),
          artifacts: z
            .array(z.object({ key: z.string(), first: z.unknown(), second: z.unknown() }))
            .nullable()
            .meta({
              description:
                "set_stats keys whose values differ (null on the side that did not set it); null when either run's are not known",
            }),
          comparison: z.object({
            idempotence_judgeable: z.boolean(),
            incomplete_runs: z.array(z.enum(["first", "second"])),
            changed_in_both: z.array(z.string()),
            changed_only_first: z.array(z.string()),
            changed_only_second: z.array(z.string()),
            hosts: z.array(z.object({ host: z.string(), a: countsSchema.nullable(), b: countsSchema.nullable(), delta: countsSchema })),
            elapsed: z.object({ a: z.number().nullable(), b: z.number().nullable(), delta_sec: z.number().nullable() }),
            playbook: z.object({ a_sec: z.number(), b_sec: z.number(), delta_sec: z.number() }).nullable(),
            tasks: z.array(
              z.object({ task: z.string(), a_sec: z.number().nullable(), b_sec: z.number().nullable(), delta_sec: z.number().nullable() }),
            ),
          }),
        }),
        z.object({ previous: z.null() }),
      ]),
    },
  },
});

export const jobArtifacts = endpoint({
  method: "get",
  path: "/api/jobs/[id]/artifacts",
  summary: "What the playbook handed back with set_stats (the job's artifacts), masked like its output",
  tags: ["analysis"],
  access: "user",
  params: idParams,
  responses: {
    200: {
      description:
        "`artifacts`: the run's set_stats data (per_host: false, aggregated as Ansible aggregates it); `hosts`: per-host data (per_host: true); " +
        "`error`: why it is missing though the playbook set some (over the 1 MiB cap), else null. Empty objects when the playbook set none.",
      schema: z.object({
        artifacts: z.record(z.string(), z.unknown()),
        hosts: z.record(z.string(), z.record(z.string(), z.unknown())),
        error: z.string().nullable(),
      }),
    },
  },
  errors: { 410: OUTPUT_GONE },
});

export const jobTimeline = endpoint({
  method: "get",
  path: "/api/jobs/[id]/timeline",
  summary: "Where the time of a run went, from its structured events",
  tags: ["analysis"],
  access: "user",
  params: idParams,
  responses: {
    200: {
      description: "the timeline (seconds after the first task started)",
      schema: z.object({
        started_at: z.number().nullable(),
        total_sec: z.number().nullable(),
        plays: z.array(z.object({ number: z.number().int(), name: z.string(), start_sec: z.number(), end_sec: z.number() })),
        tasks: z.array(
          z.object({
            task: z.string(),
            play: z.number().int(),
            kind: z.string(),
            start_sec: z.number(),
            end_sec: z.number(),
            duration_sec: z.number(),
            hosts: z.array(z.object({ host: z.string(), status: z.string(), at_sec: z.number() })),
          }),
        ),
      }),
    },
  },
  errors: { 410: OUTPUT_GONE },
});

export const jobProgressSchema = z
  .object({
    job: z.number().int(),
    status: z.string(),
    tasks_seen: z.number().int(),
    tasks_expected: z.number().int().nullable(),
    fraction: z.number().nullable(),
    elapsed_sec: z.number(),
    remaining_sec: z.number().nullable(),
    remaining_range_sec: z.tuple([z.number(), z.number()]).nullable(),
    basis: z.number().int(),
    overdue: z.boolean(),
    references: z.array(z.number().int()),
  })
  .meta({ id: "JobProgress" });

export const jobProgress = endpoint({
  method: "get",
  path: "/api/jobs/[id]/progress",
  summary: "How far a job is and about how long it has left",
  tags: ["jobs"],
  access: "user",
  params: idParams,
  responses: { 200: { description: "the progress", schema: jobProgressSchema } },
});

/** Most ids one progress request may ask about (a page of the job list holds 50 jobs). */
export const MAX_PROGRESS_IDS = 100;

/** The route parses with this schema (server/api/id-list.ts): a bad list is a 400 whose message starts with `ids: `. */
export const progressListQuerySchema = z.object({ ids: jobIdListParam("ids", MAX_PROGRESS_IDS) });

export const jobsProgress = endpoint({
  method: "get",
  path: "/api/jobs/progress",
  summary: "The progress of several jobs in one request (unknown ids are left out)",
  tags: ["jobs"],
  access: "user",
  query: progressListQuerySchema,
  responses: { 200: { description: "in the order asked", schema: z.object({ progress: z.array(jobProgressSchema) }) } },
});
