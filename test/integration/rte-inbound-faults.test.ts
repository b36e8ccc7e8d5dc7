/**
 * Faults on the link of an inbound runner (RTE_MODE=inbound: the app connects to the RTE) while
 * a job runs, on real parts: the production bundle, a real RTE over https, real
 * ansible-playbook, and a TCP proxy between the app and the RTE (where the runner's address
 * points).
 *
 * The link cut four times in one job, for different lengths, and the app restarted (SIGTERM, as
 * a deploy does) mid-job: each time the app reconnects by itself, the job ends `success`, every
 * line is stored exactly once and in order, and the RTE's spool is drained (the job's spool is
 * deleted only once the app acknowledged its last item, the end).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InboundHarness, lineCounts, type InboundRte } from "../support/inbound-rte";

const NAME = "inbound-1";
const FORM = "inbound-lines";
const LINES = 40;
const lines = Array.from({ length: LINES }, (_, i) => `inbound-lines line ${i + 1} of ${LINES}`);
/** How long each cut lasts: shorter than the app's first retry (1 s), and longer than its second. */
const CUTS_MS = [300, 1_500, 700, 2_500];

const h = new InboundHarness(NAME);
let rte: InboundRte;

const occurrences = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, "g"))?.length ?? 0;
const linesStored = (id: number) => lineCounts(h.storedOutput(id), lines).counts.filter((n) => n > 0).length;

/** Every line once and in order; the job's spool gone and nothing unacknowledged left on the RTE. */
async function expectComplete(id: number): Promise<void> {
  const { counts, inOrder } = lineCounts(h.storedOutput(id), lines);
  expect(counts).toEqual(Array(LINES).fill(1));
  expect(inOrder).toBe(true);
  await h.until(`job ${id}'s spool to be deleted (its end acknowledged)`, async () => !fs.existsSync(path.join(rte.spoolDir, String(id))));
  await h.until("the RTE to hold nothing unacknowledged", async () => /^playform_rte_spool_items 0$/m.test(await h.rteMetrics()));
}

beforeAll(async () => {
  await h.start();
  rte = h.startRte();
  await h.approve();
  await h.until("the RTE to see the app's link", async () => /the app connected from .* \(inbound\)/.test(rte.output()));
}, 120_000);

afterAll(() => h.stop());

describe("an inbound runner's link during a job", () => {
  it("loses nothing and stores nothing twice when the link is cut four times, for different lengths", async () => {
    const closedBefore = occurrences(h.app.output(), /link to runner inbound-1 closed/);
    const connectsBefore = occurrences(rte.output(), /the app connected from/);
    const id = await h.launch(FORM);
    for (const [i, ms] of CUTS_MS.entries()) {
      // A new line stored since the last cut: the link carries output again.
      const before = linesStored(id);
      await h.until(`a line stored after cut ${i}`, async () => linesStored(id) > before, 60_000);
      // The cut falls inside the job: it still runs and its last line is not stored yet.
      expect((await h.job(id)).status).toBe("running");
      expect(h.storedOutput(id)).not.toContain(lines[LINES - 1]);
      h.proxy.cut();
      // Both ends saw the link drop before it may come back.
      await h.until(
        `the app to see cut ${i + 1}`,
        async () => occurrences(h.app.output(), /link to runner inbound-1 closed/) > closedBefore + i,
      );
      await h.until(`the RTE to see cut ${i + 1}`, async () => occurrences(rte.output(), /the app's link from .* closed/) > i);
      await new Promise((resolve) => setTimeout(resolve, ms));
      h.proxy.restore();
    }
    const job = await h.finished(id, 240_000);
    expect(job.status).toBe("success");
    expect(job.runner).toBe(NAME);
    // The app came back by itself after every cut.
    expect(occurrences(rte.output(), /the app connected from/)).toBeGreaterThanOrEqual(connectsBefore + CUTS_MS.length);
    await expectComplete(id);
  }, 360_000);

  it("is opened again by the app after it is restarted mid-job; the job ends success with its output and recap", async () => {
    const id = await h.launch(FORM);
    await h.until("line 3 stored", async () => h.storedOutput(id).includes(lines[2]!), 60_000);
    // The restart falls inside the job.
    expect((await h.job(id)).status).toBe("running");
    expect(h.storedOutput(id)).not.toContain(lines[LINES - 1]);
    const connectsBefore = occurrences(rte.output(), /the app connected from/);
    const pidBefore = h.app.pid;
    const from = h.app.output().length;

    // SIGTERM, then a new process on the same port and database; the runner's address is unchanged.
    await h.app.restart();
    expect(h.app.pid).not.toBe(pidBefore);
    expect(occurrences(rte.output(), /the app's link from .* closed/)).toBeGreaterThan(0);

    await h.until(
      "the restarted app to connect to the runner",
      async () => occurrences(rte.output(), /the app connected from/) > connectsBefore,
    );
    expect(h.app.output().slice(from)).toMatch(/connected to runner inbound-1 at https:/);
    const live = await h.until("the runner shown connected", async () => {
      const r = await h.runner();
      return r?.instances.some((i: any) => i.connected) && r;
    });
    expect(live.linkError).toBeNull();

    const job = await h.finished(id, 240_000);
    expect(job.status).toBe("success");
    expect(job.runner).toBe(NAME);
    await expectComplete(id);

    const recap = await h.api("GET", `/api/jobs/${id}/recap`);
    expect(recap.status).toBe(200);
    expect(recap.json.hosts).toEqual([
      { host: "localhost", ok: 1, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 },
    ]);
    expect(recap.json.status).toBe("successful");
    expect(recap.json.plays).toHaveLength(1);
    expect(recap.json.failed_tasks).toEqual([]);
    expect(recap.json.unreachable_hosts).toEqual([]);
  }, 360_000);
});
