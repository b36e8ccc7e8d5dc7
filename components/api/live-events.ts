/**
 * Validation of what arrives on the socket.io `/ui` namespace. socket.io's typings do not
 * check anything at runtime, and a malformed event rendered blindly would break the page
 * (or worse, put the wrong job's output on it), so every event is parsed before use.
 */
import { z } from "zod";
import { JOB_STATUSES, type Job, type JobChunksEvent, type JobStatusEvent } from "./types";

const chunkSchema = z.object({
  seq: z.number().int().nonnegative(),
  stream: z.string(),
  text: z.string(),
});

const jobSchema = z.looseObject({
  id: z.number().int(),
  form: z.string(),
  status: z.enum(JOB_STATUSES),
  statusReason: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  runner: z.string().nullable(),
  user: z.string(),
  values: z.record(z.string(), z.unknown()),
  runOptions: z.record(z.string(), z.unknown()),
  abortRequested: z.boolean(),
  decidedBy: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  lastSeq: z.number().int(),
});

const chunksEventSchema = z.object({ jobId: z.number().int(), chunks: z.array(chunkSchema) });
const statusEventSchema = z.object({ jobId: z.number().int(), job: jobSchema });

export function parseChunksEvent(payload: unknown): JobChunksEvent | null {
  const parsed = chunksEventSchema.safeParse(payload);
  return parsed.success ? parsed.data : null;
}

export function parseStatusEvent(payload: unknown): JobStatusEvent | null {
  const parsed = statusEventSchema.safeParse(payload);
  return parsed.success ? { jobId: parsed.data.jobId, job: parsed.data.job as Job } : null;
}
