/**
 * A runner that stops answering (frozen, cut off without a TCP reset) is noticed by its
 * missing heartbeats: its running jobs end `abandoned`, saying why, and what the runner says
 * afterwards about those jobs changes nothing.
 */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, storedSeqs, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

/** The processes under `pid` that are not zombies (a zombie waits for its frozen parent to reap it). */
function liveDescendants(pid: number): { pid: number; args: string }[] {
  const rows = execFileSync("ps", ["-e", "-o", "pid=,ppid=,stat=,args="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s*(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, p, pp, stat, args]) => ({ pid: Number(p), ppid: Number(pp), zombie: (stat ?? "").startsWith("Z"), args: args ?? "" }));
  const live: { pid: number; args: string }[] = [];
  for (let parents = [pid]; parents.length > 0;) {
    const children = rows.filter((row) => parents.includes(row.ppid));
    live.push(...children.filter((child) => !child.zombie));
    parents = children.map((child) => child.pid);
  }
  return live;
}

let app: RunningPlayform;
let api: ApiClient;
let frozen: number | null = null;

beforeAll(async () => {
  // Heartbeats come every 15 s; 20 s without one means the instance is gone.
  app = await startPlayform({ env: { RTE_HEARTBEAT_TIMEOUT_SECONDS: "20" } });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  if (frozen) process.kill(frozen, "SIGCONT");
  await app?.stop();
});

it("abandons the jobs of a silent runner instance, and a late end does not change that", async () => {
  const id = await api.launch("hello-world", { message: "heartbeat" });
  await api.waitForStatus(id, "running");
  // Freeze the local RTE (a child of the app): its socket stays open but says nothing.
  const rtePid = Number(
    execFileSync("pgrep", ["-P", String(app.pid), "-f", "dist/rte.js"], { encoding: "utf8" })
      .trim()
      .split("\n")[0],
  );
  expect(rtePid).toBeGreaterThan(0);
  // Freeze it only once the playbook is past its start: at start, playbook-init.py reads the
  // job's hidden values from a pipe the RTE writes and closes, and an RTE frozen before the
  // close leaves it waiting for good (CI saw that on a loaded machine). hello-world's second
  // task runs `sleep 2`: seen, the playbook is well under way and runs on by itself.
  await waitFor("hello-world's `sleep 2` task to run", () => liveDescendants(rtePid).some((child) => child.args === "sleep 2"), {
    intervalMs: 20,
  });
  process.kill(rtePid, "SIGSTOP");
  frozen = rtePid;

  const current = await api.waitForEnd(id, 60_000);
  expect(current.status).toBe("abandoned");
  expect(current.statusReason).toMatch(/runner local \(local-0\) sent no heartbeat since/);

  // The playbook runs on while its RTE is frozen. Wake the RTE only once it has ended: woken
  // before (a slow, busy machine), the RTE hears the job was abandoned and aborts it, and its
  // end is an abort, not the success this test is about.
  await waitFor("the frozen RTE's playbook to end", () => liveDescendants(rtePid).length === 0, {
    timeoutMs: 120_000,
    details: () => JSON.stringify(liveDescendants(rtePid)),
  });

  // The RTE wakes up and reports the job's real end, which it spooled while frozen: the app
  // stores it, complete and once, and the job stays abandoned.
  process.kill(rtePid, "SIGCONT");
  frozen = null;
  const end = await waitFor(
    `the late end of job ${id} to be stored`,
    async () =>
      (
        await dbQuery<{ seq: number; data: unknown }>(app, 'SELECT seq, data FROM "JobChunk" WHERE "jobId" = $1 AND kind = $2', [id, "end"])
      )[0],
    { timeoutMs: 60_000, details: () => app.output() },
  );
  expect(typeof end.data === "string" ? JSON.parse(end.data) : end.data).toEqual({ status: "success", exitCode: 0, reason: null });
  const seqs = await storedSeqs(app, id);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  expect(end.seq).toBe(seqs.length);
  expect(await api.output(id)).toContain("PLAY RECAP");

  const after = (await api.get(`/api/jobs/${id}`)).job;
  expect(after).toMatchObject({
    status: "abandoned",
    statusReason: current.statusReason,
    exitCode: null,
    finishedAt: current.finishedAt,
    lastSeq: seqs.length,
  });
});
