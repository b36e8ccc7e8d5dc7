/**
 * An RTE process that dies hard (kill -9) and is started again on the same spool and work dir:
 * the new process ends the old playbook's process group and removes the job folder and the
 * hidden extravars file with the password, but keeps the spool, which it still delivers. And
 * while an RTE lives, a second one on the same spool or work dir refuses to start.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { defaultJobsDir } from "../../server/rte/env";
import { ROOT, RteHarness, groupMembers, processAlive, type RteProcess } from "../support/rte-harness";

const GRACE_SECONDS = 2;
const MARGIN_MS = 10_000;
const PASSWORD = "RestartSecret-4711-pw";

const h = new RteHarness(path.join(ROOT, "test/fixtures/forms-rte-faults"), "faults");

beforeAll(() => h.start());
afterEach(() => h.cleanUp());
afterAll(() => h.stop());

function isRunning(rte: RteProcess): boolean {
  return rte.child.exitCode === null && rte.child.signalCode === null;
}

function spoolOnDisk(spoolDir: string, jobId: number): { seqs: number[]; acked: number } {
  const dir = path.join(spoolDir, String(jobId));
  const items = path.join(dir, "items.jsonl");
  const seqs = fs.existsSync(items)
    ? fs
        .readFileSync(items, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { seq: number }).seq)
    : [];
  const acked = path.join(dir, "acked");
  return { seqs, acked: fs.existsSync(acked) ? Number(fs.readFileSync(acked, "utf8")) : 0 };
}

const pgidOf = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[2]);

describe("after kill -9 of an RTE, the next start on the same folders", () => {
  it("ends the old playbook's process group, removes the job folder and the hidden extravars file, resends the spool", async () => {
    const dirs = h.dirs("restart");
    const proxy = h.proxy();
    const appUrl = await proxy.listen();
    // Without bubblewrap's pid namespace (the fallback, docs/rte.md): there a killed RTE's
    // playbook runs on, and the next start must end it. Under bubblewrap it dies with the RTE
    // (rte-kill-9.test.ts).
    const env = { RTE_KILL_GRACE_SECONDS: String(GRACE_SECONDS), RTE_PLAYBOOK_SANDBOX: "off" };
    const first = h.startRte({ instanceId: "rs-restart", appUrl, ...dirs, env });
    await h.waitForRteOutput(first, /connected to http/);

    const pidfile = path.join(h.scratch, "restart-child.pid");
    const id = await h.api.launch("background-child", { pidfile, hold: true, api_key: PASSWORD });
    const child = await h.waitUntil(
      "the background child's pid",
      () => (fs.existsSync(pidfile) ? Number(fs.readFileSync(pidfile, "utf8")) : null),
      60_000,
    );
    const pgid = pgidOf(child);
    h.strayGroups.add(pgid);
    const jobDir = path.join(defaultJobsDir(dirs.workDir), String(id));
    const hidden = path.join(jobDir, `.playform_hidden_extravars_${id}.json`);

    // Cut the link so the next lines stay in the spool, unacknowledged. Only once the RTE has
    // seen the link drop is its acknowledged watermark final: an acknowledgement already on its
    // way when the link was cut may still be read until then.
    proxy.cut();
    await h.waitForRteOutput(first, /disconnected \(/);
    await h.waitUntil(
      "items spooled and not acknowledged",
      () => {
        const { seqs, acked } = spoolOnDisk(dirs.spoolDir, id);
        return seqs.length > 0 && Math.max(...seqs) > acked;
      },
      30_000,
    );
    await h.kill(first, { groups: false });

    // What the dead process left: the playbook runs on. Not the password: the hidden
    // extravars went to ansible through a FIFO, unlinked once opened.
    expect(processAlive(pgid)).toBe(true);
    expect(processAlive(child)).toBe(true);
    expect(groupMembers(pgid)).toContain(child);
    expect(fs.existsSync(hidden)).toBe(false);
    for (const entry of fs.readdirSync(jobDir)) {
      const file = path.join(jobDir, entry);
      if (fs.statSync(file).isFile()) expect(fs.readFileSync(file, "utf8"), file).not.toContain(PASSWORD);
    }
    expect(fs.existsSync(jobDir)).toBe(true);
    const spooled = spoolOnDisk(dirs.spoolDir, id);

    proxy.restore();
    const second = h.startRte({ instanceId: "rs-restart", appUrl, ...dirs, env });
    await h.waitUntil(
      "every process of the old playbook to be gone",
      () => groupMembers(pgid).length === 0 && !processAlive(child),
      GRACE_SECONDS * 1000 + MARGIN_MS,
    );
    await h.waitForRteOutput(second, /connected to http/);
    expect(second.output()).toMatch(new RegExp(`job ${id} was running when this RTE last stopped and its playbook still runs`));
    expect(second.output()).toMatch(new RegExp(`took over .*rte\\.lock: its holder \\(instance rs-restart, pid ${first.pid}`));
    expect(fs.existsSync(hidden)).toBe(false);
    expect(fs.existsSync(jobDir)).toBe(false);
    expect(fs.readdirSync(path.join(dirs.workDir, "running"))).toEqual([]);

    // The spool was kept and is delivered: every item the dead process spooled is stored, once.
    expect(second.output()).toMatch(new RegExp(`spool holds unacknowledged items of job\\(s\\) ${id}: they will be resent`));
    const max = Math.max(...spooled.seqs);
    await h.waitUntil("the spooled items to be stored", () => h.storedChunks(id).length >= max, 30_000);
    expect(h.storedChunks(id).map((c) => c.seq)).toEqual(Array.from({ length: max }, (_, i) => i + 1));
    for (const chunk of h.storedChunks(id)) expect(`${chunk.text ?? ""}${chunk.data ?? ""}`).not.toContain(PASSWORD);
  });
});

describe("one RTE process per spool and work dir", () => {
  it("refuses a second RTE on the same spool while the first lives (exit 4, a clear message); takes over once it is dead", async () => {
    const dirs = h.dirs("lock");
    const first = h.startRte({ instanceId: "rs-lock", ...dirs });
    await h.waitForRteOutput(first, /connected to http/);

    const second = h.startRte({ instanceId: "rs-lock", ...dirs });
    expect(await second.exit).toEqual({ code: 4, signal: null });
    expect(second.output()).toMatch(
      new RegExp(`another RTE \\(instance rs-lock, pid ${first.pid} on .*\\) is using ${dirs.spoolDir}/rte\\.lock: refusing to start`),
    );
    expect(second.output()).not.toMatch(/connected to http|health endpoints/);

    // The work dir alone is guarded as well (another spool, the same work dir).
    const third = h.startRte({ instanceId: "rs-lock-2", spoolDir: h.dirs("lock-other").spoolDir, workDir: dirs.workDir });
    expect(await third.exit).toEqual({ code: 4, signal: null });
    expect(third.output()).toMatch(new RegExp(`is using ${dirs.workDir}/rte\\.lock: refusing to start`));

    // The first one was not disturbed.
    expect(isRunning(first)).toBe(true);
    expect(first.output()).not.toMatch(/disconnected/);

    // Dead, its lock is stale: the next start takes it over.
    await h.kill(first, { groups: true });
    const fourth = h.startRte({ instanceId: "rs-lock", ...dirs });
    await h.waitForRteOutput(fourth, /connected to http/);
    expect(fourth.output()).toMatch(new RegExp(`took over ${dirs.spoolDir}/rte\\.lock: its holder \\(instance rs-lock, pid ${first.pid}`));
  });
});
