/**
 * The forms-folder contents a launch keeps (server/jobs/job-files.ts), on a real migrated
 * SQLite: a runner gets the launched content after the folder changed, and the sweep keeps
 * exactly what an unfinished job names (or what is too young to judge).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getDb } from "../../server/data/db";
import { JOB_FILE_GRACE_MS, keepLaunchedFiles, readLaunchedFiles, sweepJobFiles } from "../../server/jobs/job-files";
import { JobLifecycle } from "../../server/jobs/lifecycle";
import { buildManifest } from "../../server/forms/manifest";
import { newJobInput } from "../support/new-job";
import { useTempSqliteDatabase } from "../support/temp-db";

let cleanup: () => Promise<void>;
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "playform-job-files-"));
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const lifecycle = new JobLifecycle({ publish: () => undefined, wakeDispatcher: () => undefined });

beforeAll(async () => {
  ({ cleanup } = await useTempSqliteDatabase());
  const db = getDb();
  await db.user.create({ data: { id: "user-1", username: "alice", passwordHash: "x", role: "admin" } });
  await db.form.create({
    data: { id: "form-1", name: "hello", title: "Hello", description: "", sourceDir: folder, definition: {} },
  });
});
afterAll(async () => {
  await cleanup();
  fs.rmSync(folder, { recursive: true, force: true });
});

it("serves the launched content after the folder changed, and refuses a file not in the job", async () => {
  fs.writeFileSync(path.join(folder, "playbook.yml"), "version A\n");
  const manifest = buildManifest(folder);
  await keepLaunchedFiles(folder, manifest);
  fs.writeFileSync(path.join(folder, "playbook.yml"), "version B\n");
  const [file] = await readLaunchedFiles(folder, manifest, [sha("version A\n")]);
  expect(Buffer.from(file!.contentBase64, "base64").toString()).toBe("version A\n");
  await expect(readLaunchedFiles(folder, manifest, [sha("version B\n")])).rejects.toThrow(/is not part of this job/);
});

it("sweeps the contents no unfinished job names once past the grace, and only those", async () => {
  const db = getDb();
  const named = "named by a queued job\n";
  const ended = "named only by an ended job\n";
  const young = "kept a moment ago\n";
  const old = new Date(Date.now() - 2 * JOB_FILE_GRACE_MS);
  for (const [text, createdAt] of [
    [named, old],
    [ended, old],
    [young, new Date()],
  ] as const) {
    await db.jobFile.create({ data: { sha256: sha(text), size: text.length, content: Buffer.from(text), createdAt } });
  }
  const entry = (text: string) => ({ path: "playbook.yml", sha256: sha(text), size: text.length });
  await lifecycle.create(newJobInput({ manifest: [entry(named)] }), false);
  const endedJob = await lifecycle.create(newJobInput({ manifest: [entry(ended)] }), false);
  await db.job.update({ where: { id: endedJob }, data: { status: "success" } });

  const before = new Set((await db.jobFile.findMany({ select: { sha256: true } })).map((r) => r.sha256));
  expect(before.has(sha(ended))).toBe(true);
  expect(await sweepJobFiles()).toBeGreaterThanOrEqual(1);
  const after = new Set((await db.jobFile.findMany({ select: { sha256: true } })).map((r) => r.sha256));
  expect(after.has(sha(named))).toBe(true);
  expect(after.has(sha(young))).toBe(true);
  expect(after.has(sha(ended))).toBe(false);
});
