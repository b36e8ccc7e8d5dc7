/**
 * Third attack on issue 34, end to end (the app, its local RTE under bubblewrap, ansible-playbook).
 *
 * Item 7 and the second round's fix "deleted-but-still-open files
 * counted in the per-job disk limit" (deletedFilesHeld reads /proc/PID/fd only). A file that is
 * written, mapped with MAP_SHARED, its descriptor closed and the file deleted keeps its blocks
 * on the runner's disk as long as the mapping lives, and appears in /proc/PID/maps, not in
 * /proc/PID/fd. The fixture (test/fixtures/forms-attack3/disk-mmap) holds 40 MiB so against an
 * 8 MiB limit for 20 s, checked every second.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
const jobsDir = fs.mkdtempSync(path.join("/tmp", "playform-attack3-disk-"));

beforeAll(async () => {
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-attack3"),
      RTE_JOBS_DIR: jobsDir,
      RTE_JOB_DISK_LIMIT: "8MiB",
      RTE_JOB_DISK_CHECK_SECONDS: "1",
    },
  });
  api = apiClient(app, await adminToken(app));
}, 120_000);
afterAll(async () => {
  await app?.stop();
  fs.rmSync(jobsDir, { recursive: true, force: true });
});

it("fails a job that keeps a deleted file's blocks through a shared mapping (no descriptor) past RTE_JOB_DISK_LIMIT", async () => {
  const job = await api.waitForEnd(await api.launch("disk-mmap", { megabytes: 40 }), 120_000);
  const output = await api.output(job.id);
  // The playbook shows the mapping of the deleted file and no descriptor of it.
  expect(output).toMatch(/MAPPED 40 MiB; deleted mappings: \['[^']*\/tmp\/hog \(deleted\)'\]; deleted descriptors: \[\]/);
  expect(job.status, output).toBe("failed");
  expect(job.statusReason).toMatch(/^the job used more than RTE_JOB_DISK_LIMIT \(8 MiB\) of the runner's disk: /);
}, 180_000);

it("fails a job that takes 300,000 inodes (empty files) of the runner's disk, as it fails one that takes 8 MiB", async () => {
  // Inodes run out before bytes: ext4 makes one per 16 KiB, so 300,000 empty files are the
  // inodes of about 4.6 GiB, and a runner out of inodes can write nothing (database, spool, jobs).
  const job = await api.waitForEnd(await api.launch("disk-inodes", { files: 300_000 }), 170_000);
  const output = await api.output(job.id);
  expect(output).toMatch(/CREATED 300000 FILES; du: \d+ bytes/);
  expect(job.status, output).toBe("failed");
}, 240_000);
