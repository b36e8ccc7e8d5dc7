/**
 * The app <-> browser contract of live job updates: every socket.io message of the `/ui`
 * namespace, as zod schemas (docs/ui-socket.md). The hub (server/hub/ui-hub.ts) and the
 * browser's hook (components/hooks/use-job-lines.ts) both import this module and validate
 * what they receive with it: socket.io's TypeScript types describe, but do not check, what
 * arrives over the wire, and a malformed event rendered blindly would break the page (or put
 * the wrong job's output on it).
 *
 * Versioned like the RTE contract: every message carries `v: UI_CONTRACT_VERSION`. A follow
 * request without `v` is read as version 1 (scripts written before the field existed); one
 * with another version is ignored, as is anything else that does not parse.
 *
 * It imports nothing of the project but the RTE contract next to it (zod only, the run
 * options a job carries), so the browser bundle may import it.
 */
import { z } from "zod";
import { jobOptionsSchema } from "./rte-messages";

export const UI_CONTRACT_VERSION = 1;
export const UI_NAMESPACE = "/ui";
/** socket.io's engine path: the default, spelled out because the browser must match it. */
export const UI_SOCKET_PATH = "/socket.io";

export const UiEvents = {
  /** browser -> app: send me this job's output after `after`, then live, and its status. */
  follow: "job:follow",
  /** browser -> app: stop sending this job. */
  unfollow: "job:unfollow",
  /** app -> browser: output chunks newer than the follower's cursor, in order, each once. */
  chunks: "job:chunks",
  /** app -> browser: the job as GET /api/jobs/ID returns it, on follow and on every change. */
  status: "job:status",
} as const;

export const JOB_STATUSES = ["approval", "queued", "running", "success", "failed", "aborted", "abandoned", "rejected"] as const;
export const jobStatusSchema = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof jobStatusSchema>;

/** The run options chosen at launch, as shown (launch-time validation is server/forms/run-options.ts). */
export const jobRunOptionsSchema = z
  .object({
    check: z.boolean(),
    diff: z.boolean(),
    limit: z.string(),
    tags: z.array(z.string()),
    verbosity: z.number().int(),
  })
  .partial();

/**
 * A job as the app shows it: carried by `job:status` and returned by the REST API (`Job` in
 * docs/api.md). The server's JobView is checked against it at compile time (ui-hub.ts).
 */
/**
 * What a job will run (or ran), frozen at launch: the approval page shows it, and dispatch
 * sends exactly this whatever happened to the form since.
 */
export const jobPlanViewSchema = z.object({
  playbook: z.string(),
  inventories: z.array(z.string()),
  /** The options ansible-playbook gets: the launcher's choices over the form's settings. */
  options: jobOptionsSchema,
  /** sha256 over the paths and contents of the form's files the job runs. */
  contentHash: z.string(),
  /** The runner chosen at launch. */
  runner: z.string(),
});
export type JobPlanView = z.infer<typeof jobPlanViewSchema>;

/**
 * The Ansible environment a job was dispatched to run in (form.yaml `environment:`, else
 * `default`), with the versions its runner instance reported for it (null: not reported, an
 * older runner).
 */
export const jobEnvironmentSchema = z.object({
  name: z.string(),
  ansibleCore: z.string().nullable(),
  python: z.string().nullable(),
});
export type JobEnvironment = z.infer<typeof jobEnvironmentSchema>;

export const jobViewSchema = z.object({
  id: z.number().int().positive(),
  form: z.string(),
  status: jobStatusSchema,
  statusReason: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  runner: z.string().nullable(),
  /** Where it was dispatched to run: null until then, and for jobs dispatched before environments. */
  environment: jobEnvironmentSchema.nullable(),
  user: z.string(),
  /** Form values; password fields are masked. */
  values: z.record(z.string(), z.unknown()),
  /** {} when the form's own settings applied. */
  runOptions: jobRunOptionsSchema,
  abortRequested: z.boolean(),
  /** Who approved or rejected the job (forms that require approval). */
  decidedBy: z.string().nullable(),
  /** ISO 8601 timestamps. */
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** The highest sequence number stored for the job (output or not). */
  lastSeq: z.number().int().nonnegative(),
  /** How many lines of output are stored so far (GET /api/jobs/ID/lines addresses them 1..lines). */
  lines: z.number().int().nonnegative(),
  /** The job this one repeats (Run again: POST /api/jobs/ID/relaunch), or null. */
  relaunchOf: z.number().int().positive().nullable(),
  /**
   * When retention removed the job's output (its recap stays): ISO 8601, or null while it is
   * kept.
   */
  outputPurgedAt: z.string().nullable(),
  /**
   * The runner stopped storing a stream of the output at PROCESS_MAX_BUFFER bytes (docs/rte.md):
   * the output, and a recap read from it, are partial. The playbook itself ran on.
   */
  outputTruncated: z.boolean(),
  /** The Git source and commit the job's files came from (Sources), or null (the forms folder). */
  source: z.object({ name: z.string(), commit: z.string() }).nullable(),
  /** What launched the job when no person did: `{"schedule": ID}` (a schedule), else null. */
  launchedBy: z.object({ schedule: z.number().int().positive() }).nullable(),
  /**
   * A drift check (a schedule in drift mode): run with --check --diff; the hosts it finds
   * changes on are marked drifted (GET /api/hosts/NAME). Compared only with other drift checks.
   */
  drift: z.boolean(),
  /** What the job runs, frozen at launch; null for a job launched before plans were kept. */
  plan: jobPlanViewSchema.nullable(),
});
export type JobView = z.infer<typeof jobViewSchema>;

/**
 * One stored piece of output. `stream` is `stdout`, `stderr` or `rte` (the runner's own lines
 * about the job). Sequence numbers are per job and shared with items that are not output
 * (events, start, end), so consecutive chunks may have gaps.
 */
export const outputChunkSchema = z.object({
  seq: z.number().int().positive(),
  stream: z.string(),
  text: z.string(),
  /** The job's line number of the chunk's first line (1-based): every chunk starts a new line. */
  firstLine: z.number().int().positive(),
  /** How many lines the chunk holds (its text split at newlines, a final newline ending the last one). */
  lineCount: z.number().int().nonnegative(),
});
export type OutputChunk = z.infer<typeof outputChunkSchema>;

const version = z.literal(UI_CONTRACT_VERSION);
const jobId = z.number().int().positive();

/** browser -> app `job:follow`. Following a job again moves the cursor to the new `after`. */
export const jobFollowSchema = z.object({
  v: version.default(UI_CONTRACT_VERSION),
  jobId,
  /** The highest seq the browser already has; 0 for everything. */
  after: z.number().int().min(0).default(0),
  /**
   * The highest line number the browser already has. When given, it replaces `after`: the app
   * sends the chunks holding lines above it (a page that read the tail over HTTP follows from there).
   */
  afterLine: z.number().int().min(0).optional(),
});
export type JobFollow = z.input<typeof jobFollowSchema>;

/** browser -> app `job:unfollow`. */
export const jobUnfollowSchema = z.object({ v: version.default(UI_CONTRACT_VERSION), jobId });
export type JobUnfollow = z.input<typeof jobUnfollowSchema>;

/** app -> browser `job:chunks`. */
export const jobChunksSchema = z.object({ v: version, jobId, chunks: z.array(outputChunkSchema) });
export type JobChunks = z.infer<typeof jobChunksSchema>;

/** app -> browser `job:status`. */
export const jobStatusMessageSchema = z.object({ v: version, jobId, job: jobViewSchema });
export type JobStatusMessage = z.infer<typeof jobStatusMessageSchema>;
