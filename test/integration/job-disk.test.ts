/**
 * A job's disk (docs/rte.md, "Disk"): under the sandbox a playbook's /tmp, /var/tmp, /dev/shm
 * and /run/lock are a folder of its job, so what it leaves there goes with the job and no
 * other job or program of the runner sees it; and a job that takes more than
 * RTE_JOB_DISK_LIMIT (its folder with that /tmp, and its output) fails, saying so, instead of
 * filling the runner's disk. The attack run left a 50 MB file in the runner's /tmp after its job.
 * The real app, its local RTE (under bubblewrap, with the RTE's jobs folder in /tmp, as by
 * default) and ansible-playbook; the forms are test/fixtures/forms-disk.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
const hostFile = path.join(os.tmpdir(), `playform-host-${randomBytes(6).toString("hex")}`);
const jobsDir = fs.mkdtempSync(path.join("/tmp", "playform-disk-jobs-"));

beforeAll(async () => {
  fs.writeFileSync(hostFile, "the runner's own /tmp\n", { mode: 0o644 });
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-disk"),
      RTE_JOBS_DIR: jobsDir,
      RTE_JOB_DISK_LIMIT: "8MiB",
      RTE_JOB_DISK_CHECK_SECONDS: "1",
    },
  });
  api = apiClient(app, await adminToken(app));
}, 120_000);
afterAll(async () => {
  await app?.stop();
  fs.rmSync(hostFile, { force: true });
  fs.rmSync(jobsDir, { recursive: true, force: true });
});

it("gives the playbook a /tmp, /var/tmp, /dev/shm and /run/lock of its own, gone with the job", async () => {
  expect(app.output()).toMatch(/pid namespace of their own \(bubblewrap\)/);
  const name = `probe-${randomBytes(6).toString("hex")}`;
  // A size no other program makes a System V shared memory segment of.
  const ipcBytes = 1_000_000 + randomBytes(3).readUIntBE(0, 3);
  const job = await api.waitForEnd(await api.launch("tmp-probe", { name, host_file: hostFile, ipc_bytes: ipcBytes }));
  const output = await api.output(job.id);
  expect(job.status, output).toBe("success");
  expect(output).toContain("WROTE 1048576 BYTES");
  expect(output).toContain("TMPDIR=/tmp");
  expect(output, "the runner's /tmp is hidden from the playbook").toContain("HOST FILE HIDDEN");
  expect(output).not.toContain("HOST FILE SEEN");
  // Its IPC namespace went with it: the segment it made is not on the runner (an attack run
  // left two 100 MB segments behind, held by nothing).
  expect(output).toContain("IPC SEGMENT MADE");
  const segmentSizes = fs
    .readFileSync("/proc/sysvipc/shm", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/)[3]);
  expect(segmentSizes).not.toContain(String(ipcBytes));
  // Not written to the runner's temp folders, and the job's folder (its /tmp with it) is gone.
  for (const dir of ["/tmp", "/var/tmp", "/dev/shm", "/run/lock"])
    expect(fs.existsSync(path.join(dir, name)), `${dir}/${name}`).toBe(false);
  expect(fs.readdirSync(jobsDir).filter((entry) => entry === String(job.id))).toEqual([]);
  // The background child that wrote after its job died with the job's namespace, its file too.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(fs.existsSync(path.join("/tmp", `${name}.late`))).toBe(false);
  expect(fs.readdirSync(jobsDir).filter((entry) => entry === String(job.id))).toEqual([]);
});

const WHAT = { tmp: "/tmp", folder: "folder", deleted: "deleted file held open", output: "output" } as const;
const REASON = {
  tmp: /its folder and \/tmp [0-9.]+ MiB/,
  folder: /its folder and \/tmp [0-9.]+ MiB/,
  // du cannot see it: an attack run held 600 MB so against a 200 MiB limit, and its job succeeded.
  deleted: /deleted files it holds open or mapped [0-9.]+ MiB/,
  output: /its output [0-9.]+ MiB/,
};
for (const where of ["tmp", "folder", "deleted", "output"] as const) {
  it(`fails a job whose ${WHAT[where]} passes RTE_JOB_DISK_LIMIT, saying so`, async () => {
    // 10 MB printed (as base64 of 7.5 MB) is over 8 MiB on stdout alone.
    const megabytes = where === "output" ? 10 : 20;
    const job = await api.waitForEnd(await api.launch("disk-hog", { megabytes, where }), 120_000);
    const output = await api.output(job.id);
    expect(job.status, output).toBe("failed");
    expect(job.statusReason).toMatch(/^the job used more than RTE_JOB_DISK_LIMIT \(8 MiB\) of the runner's disk: /);
    expect(job.statusReason).toMatch(REASON[where]);
    // Stopped at the check, while it held: the minute's sleep never ended.
    expect(output).toContain("the playbook is stopped");
    expect(output).not.toMatch(/TASK \[Hold\][^]*ok: \[localhost\]/);
    expect(fs.readdirSync(jobsDir).filter((entry) => entry === String(job.id))).toEqual([]);
  });
}

it("runs a job under the limit as before", async () => {
  const job = await api.waitForEnd(await api.launch("tmp-probe", { name: "small", host_file: hostFile }));
  expect(job.status).toBe("success");
});
