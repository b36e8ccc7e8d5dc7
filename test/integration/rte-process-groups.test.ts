/**
 * After every job, whatever its end, the playbook's process group is gone: SIGTERM to the
 * group, SIGKILL to the group once RTE_KILL_GRACE_SECONDS have passed with anything of it
 * alive, and only then the job's `end`. Real RTE processes, real ansible-playbook, a playbook
 * whose task leaves a child in the background that ignores SIGTERM.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stripAnsi } from "../../server/protocol/ansi";
import { ROOT, RteHarness, groupMembers, hostPid, processAlive, type RteProcess } from "../support/rte-harness";

const GRACE_SECONDS = 2;
/** Time for the cancel to reach the RTE (the dispatcher sends it within 2 s) and for polling. */
const MARGIN_MS = 8_000;
/** What the fixture's playbook still does after its child wrote the pid (a debug task, the recap). */
const PLAYBOOK_REST_MS = 15_000;

const h = new RteHarness(path.join(ROOT, "test/fixtures/forms-rte-faults"), "faults");

beforeAll(() => h.start());
afterEach(() => h.cleanUp());
afterAll(() => h.stop());

function startRte(name: string, env: Record<string, string> = {}): RteProcess {
  return h.startRte({ instanceId: name, ...h.dirs(name), env: { RTE_KILL_GRACE_SECONDS: String(GRACE_SECONDS), ...env } });
}

/**
 * Launches the fixture and waits until its background child has written its pid. The child
 * writes its pid in the playbook's pid namespace (bubblewrap): translated to this test's.
 */
async function launchWithBackgroundChild(rte: RteProcess, hold: boolean): Promise<{ id: number; child: number }> {
  const pidfile = path.join(h.scratch, `child-${Date.now()}-${Math.random().toString(36).slice(2)}.pid`);
  const id = await h.api.launch("background-child", { pidfile, hold });
  const written = await h.waitUntil(
    `job ${id}'s background child to write ${pidfile}`,
    () => (fs.existsSync(pidfile) ? Number(fs.readFileSync(pidfile, "utf8").trim()) : null),
    60_000,
  );
  const sandboxed = rte.output().includes("playbooks run in a pid namespace of their own");
  const child = sandboxed
    ? await h.waitUntil(`the pid of ${written} outside the playbook's namespace`, () => hostPid(rte.pid, written), 10_000)
    : written;
  // Kill it at the end even if the RTE does not (the test failed).
  const pgid = Number(fs.readFileSync(`/proc/${child}/stat`, "utf8").split(") ")[1]!.split(" ")[2]);
  h.strayGroups.add(pgid);
  return { id, child };
}

/**
 * Watches a job until its end is stored, noting whether the pid was still alive when the end
 * was first seen (polled every 50 ms: an end sent before the group was gone would be seen
 * while the child, which outlives SIGTERM for the grace period, still lives).
 */
async function watchEnd(jobId: number, pid: number, timeoutMs: number): Promise<{ aliveAtEnd: boolean }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = processAlive(pid);
    if (h.storedChunks(jobId).some((c) => c.kind === "end")) return { aliveAtEnd: alive && processAlive(pid) };
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not end within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the playbook's process group ends with the job", () => {
  it("abort: SIGTERM to the group, SIGKILL after the grace period to a child that ignores SIGTERM; end sent after", async () => {
    const rte = startRte("pg-abort");
    await h.waitForRteOutput(rte, /connected to http/);
    const { id, child } = await launchWithBackgroundChild(rte, true);
    expect(processAlive(child)).toBe(true);

    const aborted = Date.now();
    expect((await h.api.call("POST", `/api/jobs/${id}/abort`)).status).toBe(202);
    const ended = watchEnd(id, child, GRACE_SECONDS * 1000 + MARGIN_MS + 10_000);
    await h.waitUntil(`background child ${child} to be gone`, () => !processAlive(child), GRACE_SECONDS * 1000 + MARGIN_MS);
    const tookMs = Date.now() - aborted;
    // It ignored SIGTERM: only the SIGKILL after the grace period ended it.
    expect(tookMs).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 500);
    // The end is only sent once the group is gone.
    expect(await ended).toEqual({ aliveAtEnd: false });

    const job = await h.api.waitForEnd(id, 30_000);
    expect(job.status).toBe("aborted");
    expect(await h.api.output(id)).toMatch(/SIGKILL/);
  });

  it("success: a background child left by a successful job is ended too, before the end is sent", async () => {
    const rte = startRte("pg-success");
    await h.waitForRteOutput(rte, /connected to http/);
    const { id, child } = await launchWithBackgroundChild(rte, false);

    // The rest of the playbook takes a few seconds; then the grace period for the child.
    const bound = PLAYBOOK_REST_MS + GRACE_SECONDS * 1000 + MARGIN_MS;
    const ended = watchEnd(id, child, bound);
    await h.waitUntil(`background child ${child} to be gone`, () => !processAlive(child), bound);
    expect(await ended).toEqual({ aliveAtEnd: false });
    const job = await h.api.waitForEnd(id, 30_000);
    expect(job.status).toBe("success");
    expect(job.exitCode).toBe(0);
    expect(await h.api.output(id)).toMatch(/left 1 process|SIGKILL/);
  });

  it.each([
    ["in the sandbox", {}],
    ["without it", { RTE_PLAYBOOK_SANDBOX: "off" }],
  ])("a clean playbook leaves nothing, and its output says nothing was left (%s)", async (_, env) => {
    // ansible-playbook's workers are often still exiting when it ends: before the group could
    // end by itself, most clean jobs ended with "the playbook left 1 process(es)" (issue 35).
    const rte = startRte(`pg-clean-${Object.keys(env).length}`, env);
    await h.waitForRteOutput(rte, /connected to http/);
    const ids = await Promise.all([1, 2, 3].map(() => h.api.launch("clean")));
    for (const id of ids) {
      const job = await h.api.waitForEnd(id, 90_000);
      expect(job.status).toBe("success");
      const output = stripAnsi(await h.api.output(id));
      expect(output).toMatch(/host-c +: ok=4 /);
      expect(output).not.toMatch(/left \d+ process|SIGKILL|still alive/);
    }
  });

  it("drain: SIGTERM to the RTE cancels the running job at the drain limit and reaps its group before exiting", async () => {
    const rte = startRte("pg-drain", { RTE_DRAIN_SECONDS: "1" });
    await h.waitForRteOutput(rte, /connected to http/);
    const { id, child } = await launchWithBackgroundChild(rte, true);
    const pgid = Number(fs.readFileSync(`/proc/${child}/stat`, "utf8").split(") ")[1]!.split(" ")[2]);

    rte.child.kill("SIGTERM");
    const exit = await Promise.race([rte.exit, new Promise((resolve) => setTimeout(() => resolve(null), 30_000))]);
    expect(exit).toEqual({ code: 0, signal: null });
    // The RTE exits only after the group is gone.
    expect(processAlive(child)).toBe(false);
    expect(groupMembers(pgid)).toEqual([]);
    const job = await h.api.waitForEnd(id, 30_000);
    expect(job.status).toBe("aborted");
  });
});
