/**
 * Ways around the per-job disk limit the third attack on issue 34 found, end to end (the app,
 * its local RTE under bubblewrap, ansible-playbook), each failing the job as bytes past the
 * limit do:
 *
 * - A file written, mapped with MAP_SHARED, its descriptor closed and the file deleted keeps its
 *   blocks on the runner's disk as long as the mapping lives, and appears in /proc/PID/maps, not
 *   in /proc/PID/fd (deletedFilesHeld read only the descriptors). The fixture
 *   (test/fixtures/forms-disk-bypass/disk-mmap) holds 40 MiB so against an 8 MiB limit for 20 s,
 *   checked every second.
 * - Empty files take no bytes but inodes, which run out before bytes: they count at the share of
 *   the disk an inode stands for (bytesPerInode; ext4: 16 KiB).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { bytesPerInode } from "../../server/rte/disk-usage";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
const jobsDir = fs.mkdtempSync(path.join("/tmp", "playform-disk-bypass-"));

beforeAll(async () => {
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-disk-bypass"),
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
  expect(job.status, output).toBe("failed");
  // What passed the limit is the deleted file (its descriptor closed before the unlink: only the
  // mapping holds it), not the folder: caught before the unlink, the folder would hold the 40 MiB.
  const reason =
    /^the job used more than RTE_JOB_DISK_LIMIT \(8 MiB\) of the runner's disk: [\d.]+ MiB \(its folder and \/tmp ([\d.]+) (bytes|KiB|MiB), deleted files it holds open or mapped ([\d.]+) MiB/.exec(
      job.statusReason ?? "",
    );
  expect(reason, job.statusReason).not.toBeNull();
  if (reason![2] === "MiB") expect(Number(reason![1])).toBeLessThan(8);
  expect(Number(reason![3])).toBeGreaterThanOrEqual(40);
}, 180_000);

it("fails a job that takes 20,000 inodes (empty files) of the runner's disk, as it fails one that takes 8 MiB", async () => {
  // Inodes run out before bytes: ext4 makes one per 16 KiB, so 20,000 empty files are the
  // inodes of about 312 MiB, and a runner out of inodes can write nothing (database, spool, jobs).
  const perInode = await bytesPerInode(jobsDir);
  expect(perInode, "this test needs a file system with a fixed number of inodes (ext4)").toBeGreaterThan(0);
  const job = await api.waitForEnd(await api.launch("disk-inodes", { files: 20_000 }), 170_000);
  const output = await api.output(job.id);
  expect(job.status, output).toBe("failed");
  // The bytes alone are under the limit: the inodes fail it.
  expect(job.statusReason).toMatch(
    /^the job used more than RTE_JOB_DISK_LIMIT \(8 MiB\) of the runner's disk: .*\(its folder and \/tmp [\d.]+ (bytes|KiB|MiB) in [\d,]+ files and folders, whose inodes are those of [\d.]+ (MiB|GiB) of this disk/,
  );
}, 240_000);
