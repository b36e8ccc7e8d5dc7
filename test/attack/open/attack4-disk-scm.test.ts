/**
 * Fourth attack on issue 34, item 7, end to end (the app, its local RTE under bubblewrap,
 * ansible-playbook): a job writes 40 MiB into a file in its /tmp, sends the descriptor over a
 * Unix socket (SCM_RIGHTS) without receiving it, closes its own and deletes the file. The
 * blocks stay on the runner's disk for as long as the job runs (20 s here), but no
 * /proc/PID/fd link or mapping names the file: deletedFilesHeld counts nothing and the job,
 * 32 MiB past an 8 MiB RTE_JOB_DISK_LIMIT checked every second, succeeds.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../../support/playform";

let app: RunningPlayform;
let api: ApiClient;
const jobsDir = fs.mkdtempSync(path.join("/tmp", "playform-attack4-disk-"));

beforeAll(async () => {
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../../fixtures/forms-attack4"),
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

it("fails a job that keeps a deleted file's blocks through a descriptor in flight on a Unix socket past RTE_JOB_DISK_LIMIT", async () => {
  const job = await api.waitForEnd(await api.launch("disk-scm", { megabytes: 40 }), 120_000);
  const output = await api.output(job.id);
  expect(output).toContain("ready");
  expect(job.status, `${job.statusReason}\n${output}`).toBe("failed");
  expect(job.statusReason).toMatch(/RTE_JOB_DISK_LIMIT/);
}, 180_000);
