/**
 * A playbook does not outlive its RTE, and its secrets are never in a file.
 * A standalone RTE (real process, real ansible-playbook under bubblewrap) runs a job that
 * leaves a background child ignoring SIGTERM and holds; while it runs, no file of the RTE's
 * folders holds the job's password; then the RTE is killed with SIGKILL: every process of the
 * playbook (bwrap, ansible-playbook, its workers, the background child) is gone within
 * seconds, by the kernel, with nobody left to end them.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { defaultJobsDir } from "../../server/rte/env";
import { ROOT, RteHarness, childPids, groupMembers, hostPid, processAlive } from "../support/rte-harness";

const h = new RteHarness(path.join(ROOT, "test/fixtures/forms-rte-faults"), "faults");

beforeAll(() => h.start());
afterEach(() => h.cleanUp());
afterAll(() => h.stop());

/** Every descendant of a process, children first. */
function descendants(pid: number): number[] {
  const found: number[] = [];
  for (const child of childPids(pid)) found.push(child, ...descendants(child));
  return found;
}

/** The files under `dir` (if it exists) whose content includes `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const holding: string[] = [];
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const target = path.join(current, entry.name);
      if (entry.isDirectory()) walk(target);
      else if (entry.isFile() && fs.readFileSync(target).includes(needle)) holding.push(target);
    }
  };
  walk(dir);
  return holding;
}

it("kill -9 of a standalone RTE: its playbook's processes end with it, and no file ever held the job's password", async () => {
  const dirs = h.dirs("kill-9");
  // The default jobs folder (its parents must be open to the playbook user: not the scratch folder).
  const jobsDir = defaultJobsDir(dirs.workDir);
  const rte = h.startRte({ instanceId: "kill-9", ...dirs, env: { RTE_KILL_GRACE_SECONDS: "2" } });
  await h.waitForRteOutput(rte, /connected to http/, 60_000);

  const secret = `Kill9-${randomBytes(9).toString("base64url")}`;
  const pidfile = path.join(h.scratch, `kill-9-${Date.now()}.pid`);
  const id = await h.api.launch("background-child", { pidfile, hold: true, api_key: secret });
  const written = await h.waitUntil(
    `job ${id}'s background child to write ${pidfile}`,
    () => (fs.existsSync(pidfile) ? Number(fs.readFileSync(pidfile, "utf8").trim()) : null),
    60_000,
  );
  // The pid it wrote is its pid in the playbook's namespace (under bubblewrap): ours differs.
  const child = await h.waitUntil(`the pid of ${written} outside the playbook's namespace`, () => hostPid(rte.pid, written), 10_000);
  expect(processAlive(child)).toBe(true);
  const pgid = Number(fs.readFileSync(`/proc/${child}/stat`, "utf8").split(") ")[1]!.split(" ")[2]);
  // Cleaned up by the harness if this test fails.
  h.strayGroups.add(pgid);
  await h.waitUntil(
    `job ${id} to run its last task`,
    () => h.storedChunks(id).some((c) => (c.text ?? "").includes("Hold until aborted")),
    60_000,
  );

  // While it runs: ansible has the password, no file does (not the job folder, not the work dir, not the spool).
  // What the RTE started, and its process group (the background child's parent has exited).
  const playbook = [...new Set([...descendants(rte.pid), ...groupMembers(pgid)])];
  expect(playbook).toContain(child);
  expect(playbook.length).toBeGreaterThanOrEqual(3);
  for (const dir of [jobsDir, dirs.workDir, dirs.spoolDir]) expect(filesHolding(dir, secret), dir).toEqual([]);

  await h.kill(rte, { groups: false });
  // Nobody ends them but the kernel: every process the playbook had is gone within seconds.
  await h.waitUntil(
    `the playbook's processes (${playbook.join(", ")}) to be gone`,
    () => playbook.every((pid) => !processAlive(pid)),
    10_000,
  );
  for (const dir of [jobsDir, dirs.workDir]) expect(filesHolding(dir, secret), dir).toEqual([]);
  expect(rte.output()).toContain("playbooks run in a pid namespace of their own (bubblewrap)");
});
