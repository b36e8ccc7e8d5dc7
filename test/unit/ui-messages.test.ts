import { describe, expect, it } from "vitest";
import {
  UI_CONTRACT_VERSION,
  jobChunksSchema,
  jobFollowSchema,
  jobStatusMessageSchema,
  jobUnfollowSchema,
  type JobView,
} from "../../server/protocol/ui-messages";

const job: JobView = {
  id: 7,
  form: "hello-world",
  status: "running",
  statusReason: null,
  exitCode: null,
  runner: "local",
  environment: { name: "default", ansibleCore: "2.19.4", python: "3.13.5" },
  user: "admin",
  values: { message: "hi", password: "••••••" },
  runOptions: { check: true, tags: ["deploy"] },
  abortRequested: false,
  decidedBy: null,
  createdAt: "2026-01-02T03:04:05.000Z",
  startedAt: "2026-01-02T03:04:06.000Z",
  finishedAt: null,
  lastSeq: 12,
  lines: 40,
  relaunchOf: null,
  outputPurgedAt: null,
  outputTruncated: false,
  source: null,
  launchedBy: null,
  drift: false,
  plan: null,
};

describe("the /ui contract", () => {
  it("reads a follow request without a version as version 1, and refuses another version", () => {
    expect(jobFollowSchema.parse({ jobId: 7, after: 3 })).toEqual({ v: UI_CONTRACT_VERSION, jobId: 7, after: 3 });
    expect(jobFollowSchema.parse({ v: 1, jobId: 7 })).toEqual({ v: 1, jobId: 7, after: 0 });
    expect(jobFollowSchema.safeParse({ v: 2, jobId: 7, after: 0 }).success).toBe(false);
    expect(jobFollowSchema.safeParse({ v: 1, jobId: 0, after: 0 }).success).toBe(false);
    expect(jobFollowSchema.safeParse({ v: 1, jobId: 7, after: -1 }).success).toBe(false);
    expect(jobUnfollowSchema.parse({ jobId: 7 })).toEqual({ v: 1, jobId: 7 });
  });

  it("requires the version on what the app sends", () => {
    const chunks = { jobId: 7, chunks: [{ seq: 4, stream: "stdout", text: "ok\n", firstLine: 9, lineCount: 1 }] };
    expect(jobChunksSchema.safeParse(chunks).success).toBe(false);
    expect(jobChunksSchema.parse({ v: 1, ...chunks })).toEqual({ v: 1, ...chunks });
    expect(jobChunksSchema.safeParse({ v: 1, jobId: 7, chunks: [{ seq: "4", stream: "stdout", text: "" }] }).success).toBe(false);
  });

  it("carries the whole job view in job:status and rejects a malformed one", () => {
    expect(jobStatusMessageSchema.parse({ v: 1, jobId: 7, job })).toEqual({ v: 1, jobId: 7, job });
    expect(jobStatusMessageSchema.safeParse({ v: 1, jobId: 7, job: { ...job, status: "exploded" } }).success).toBe(false);
    const { lastSeq: _dropped, ...partial } = job;
    expect(jobStatusMessageSchema.safeParse({ v: 1, jobId: 7, job: partial }).success).toBe(false);
  });
});
