/**
 * /dev is read-only under bubblewrap (`--remount-ro /dev` after the binds, server/rte/sandbox.ts),
 * so a playbook holds no memory there outside the disk check. Attack 6 on issue 34, before the
 * fix: under bubblewrap a playbook wrote outside its job folder and its temp folders. `--dev /dev` (server/rte/sandbox.ts, BWRAP_ARGS) mounts a tmpfs at /dev that
 * belongs to the playbook's user (mode 0755, no size: half the RAM), and only /dev/shm in it is
 * the job's folder. What the playbook writes to /dev/anything is neither in its folder nor a
 * deleted open file, so the disk check (RTE_JOB_DISK_LIMIT) never counts it: 20 MiB held past
 * an 8 MiB limit with a check every second, and the job ends `success`. docs/security.md says
 * a playbook writes "only its job folder and its temp folders" and that a job cannot hold
 * memory as files outside the measure (/dev/shm was made the job's folder for that reason).
 * Fixture: test/fixtures/forms-attack6/dev-write.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { ROOT } from "../support/rte-harness";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-attack6"),
      RTE_JOB_DISK_LIMIT: "8MiB",
      RTE_JOB_DISK_CHECK_SECONDS: "1",
    },
  });
  api = apiClient(app, await adminToken(app));
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

it("a playbook cannot write into /dev, outside its folder and the disk check", async () => {
  expect(app.output()).toMatch(/pid namespace of their own \(bubblewrap\)/);
  const job = await api.waitForEnd(await api.launch("dev-write", { mib: 20 }));
  const output = await api.output(job.id);
  // Refused (/dev read-only): the playbook goes on and the job ends as it says. (The attack's
  // test wanted `failed`, the write counted by the disk check; refusing it is the fix.)
  expect(output, output).toMatch(/REFUSED: \/dev\/playform-fill/);
  expect(output).not.toMatch(/ALLOWED: \d+ bytes in \/dev\/playform-fill/);
  expect(job.status, output).toBe("success");
}, 120_000);
