/** Contracts of hosts: every host of the runs a caller may read (server/jobs/hosts.ts). */
import { z } from "zod";
import { endpoint } from "../contract";
import { queryInt } from "../route";
import { runOptionsViewSchema } from "./jobs";

export const HOSTS_DEFAULT_LIMIT = 50;
export const HOSTS_MAX_LIMIT = 200;

const limitParam = queryInt(1, HOSTS_MAX_LIMIT)
  .default(HOSTS_DEFAULT_LIMIT)
  .meta({ description: `1..${HOSTS_MAX_LIMIT}, default ${HOSTS_DEFAULT_LIMIT}` });
const cursorParam = z.string().optional().meta({ description: "the nextCursor of the previous page, as it was" });

export const hostListQuerySchema = z.object({
  q: z.string().max(255, "must be at most 255 characters").optional().meta({ description: "a part of the host's name, any case" }),
  cursor: cursorParam,
  limit: limitParam,
});

export const hostRunsQuerySchema = z.object({ cursor: cursorParam, limit: limitParam });

const resultSchema = z.object({
  ok: z.number().int(),
  changed: z.number().int(),
  failed: z.number().int(),
  unreachable: z.number().int(),
});

const driftSchema = z.object({
  since: z.string().meta({ description: "when the first drift check of the run of checks that found changes on it ended (ISO 8601)" }),
  jobId: z.number().int().meta({ description: "the newest drift check that found changes on it" }),
  form: z.string().meta({ description: "that check's form" }),
  forms: z
    .array(z.string())
    .meta({ description: "every form whose drift checks find it drifted now (that the caller may read), newest first" }),
});

const driftTaskSchema = z.object({
  task: z.string().meta({ description: "the task's name as its banner shows it" }),
  diff: z
    .string()
    .nullable()
    .meta({ description: "what --diff printed for it on this host, masked, at most 16 Ki characters; null when it printed none" }),
});

const hostSummarySchema = z
  .object({
    name: z.string(),
    lastJob: z
      .object({ id: z.number().int(), form: z.string(), status: z.string(), finishedAt: z.string() })
      .meta({ description: "the newest run the caller may read that had this host" }),
    lastResult: resultSchema.meta({ description: "the host's PLAY RECAP counters in that run" }),
    drift: driftSchema.nullable().meta({
      description: "drifted: a schedule's drift checks (mode drift) find changes on it; null: in line, or never drift-checked",
    }),
  })
  .meta({ id: "HostSummary" });

const hostDetailSchema = hostSummarySchema
  .extend({
    drift: driftSchema
      .extend({ tasks: z.array(driftTaskSchema).meta({ description: "the tasks the newest check found would change it (at most 100)" }) })
      .nullable(),
  })
  .meta({ id: "HostDetail" });

const hostRunSchema = z.object({
  jobId: z.number().int(),
  form: z.string(),
  status: z.string().meta({ description: "the job's status" }),
  finishedAt: z.string(),
  options: runOptionsViewSchema.nullable().meta({ description: "how the run was run; null for a job launched before plans were kept" }),
  result: resultSchema.extend({ skipped: z.number().int(), rescued: z.number().int(), ignored: z.number().int() }),
  changedTasks: z.array(z.string()).meta({
    description:
      "the tasks with a changed result on this host, in the run's order (from the run's events; a run known only by its text names them only when it had one host)",
  }),
  changedTaskLines: z.array(z.number().int().nullable()).meta({
    description:
      "the first output line of each changed task, for a link to /jobs/ID#L<line>; null when not known (the output removed by retention)",
  }),
});

export const listHosts = endpoint({
  method: "get",
  path: "/api/hosts",
  summary: "Every host of the runs the caller may read, by name, with its newest run's result",
  tags: ["hosts"],
  access: "user",
  query: hostListQuerySchema,
  responses: {
    200: {
      description: "a page of hosts",
      schema: z.object({ hosts: z.array(hostSummarySchema), nextCursor: z.string().nullable() }),
    },
  },
  errors: { 400: "a malformed limit or cursor, or q over 255 characters" },
});

const hostParams = z.object({ name: z.string().meta({ description: "the host's name, as the recap has it" }) });

export const getHost = endpoint({
  method: "get",
  path: "/api/hosts/[name]",
  summary: "A host and its runs, newest first",
  tags: ["hosts"],
  access: "user",
  params: hostParams,
  query: hostRunsQuerySchema,
  responses: {
    200: {
      description: "the host and a page of its runs the caller may read",
      schema: z.object({ host: hostDetailSchema, runs: z.array(hostRunSchema), nextCursor: z.string().nullable() }),
    },
  },
  errors: { 400: "a malformed limit or cursor", 404: "no run the caller may read had this host" },
});
