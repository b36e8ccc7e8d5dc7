/**
 * A job whose output passes the runner's cap (PROCESS_MAX_BUFFER, set small here) is marked:
 * `outputTruncated` on the Job, its recap says it is partial (`output_truncated`), and the line
 * count the API gives (the count the page shows) is the count of lines stored, every one of
 * them up to the cut, in order. A job within the cap is not marked. Real app, real local RTE,
 * real ansible-playbook.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkLines } from "../../server/protocol/output-lines";
import type { OutputChunk } from "../../server/protocol/ui-messages";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const FORMS = path.resolve(import.meta.dirname, "../fixtures/forms-output");
/** Bytes per stream: the 20,000 lines below print about 900 KB on stdout. */
const CAP = 200_000;
const LINES = 20_000;

let app: RunningPlayform;
let api: ApiClient;

/** Every stored line of a job, from its chunks in seq order. */
async function storedLines(jobId: number): Promise<{ stream: string; text: string }[]> {
  const lines: { stream: string; text: string }[] = [];
  let after = 0;
  for (;;) {
    const page = await api.get(`/api/jobs/${jobId}/output?after=${after}&limit=1000`);
    for (const chunk of page.chunks as OutputChunk[]) {
      expect(chunk.firstLine).toBe(lines.length + 1);
      for (const text of chunkLines(chunk.text)) lines.push({ stream: chunk.stream, text });
      after = chunk.seq;
    }
    if (page.chunks.length < 1000) return lines;
  }
}

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS, PROCESS_MAX_BUFFER: String(CAP) } });
  api = apiClient(app, await adminToken(app));
}, 240_000);

afterAll(async () => {
  await app?.stop();
});

describe("output past PROCESS_MAX_BUFFER", () => {
  it("marks the job outputTruncated, says so in the recap, and counts the lines it stored", async () => {
    const id = await api.launch("big-output", { lines: LINES });
    const job = await api.waitForEnd(id, 180_000);
    // The playbook ran on to its end: the status is the run's, the output is what was kept.
    expect(job.status, app.output()).toBe("success");
    expect(job.outputTruncated).toBe(true);

    const lines = await storedLines(id);
    expect(job.lines).toBe(lines.length);
    const tail = (await api.get(`/api/jobs/${id}/lines?tail=1`)) as { total: number; lines: { n: number }[] };
    expect(tail.total).toBe(lines.length);
    expect(tail.lines.at(-1)?.n).toBe(lines.length);

    // Cut, not sampled: the playbook's numbered lines are there from 1, without a gap, and not all of them.
    const numbers = lines.flatMap((l) => /"line (\d{8}) of the big output"/.exec(l.text)?.[1] ?? []).map(Number);
    expect(numbers.length).toBeGreaterThan(100);
    expect(numbers.length).toBeLessThan(LINES);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    // Kept up to the cap, not a batch short of it: about CAP bytes of stdout are stored.
    const stdoutBytes = lines.filter((l) => l.stream === "stdout").reduce((sum, l) => sum + Buffer.byteLength(l.text) + 1, 0);
    expect(stdoutBytes).toBeLessThanOrEqual(CAP);
    expect(stdoutBytes).toBeGreaterThan(CAP - 1_000);
    expect(lines.some((l) => l.stream === "rte" && l.text.includes(`stdout exceeded ${CAP} bytes (PROCESS_MAX_BUFFER)`))).toBe(true);

    const recap = await api.get(`/api/jobs/${id}/recap`);
    expect(recap.output_truncated).toBe(true);
  });

  it("leaves a job within the cap unmarked", async () => {
    const id = await api.launch("big-output", { lines: 10 });
    const job = await api.waitForEnd(id, 120_000);
    expect(job.status, app.output()).toBe("success");
    expect(job.outputTruncated).toBe(false);
    expect(job.lines).toBe((await storedLines(id)).length);
    const recap = await api.get(`/api/jobs/${id}/recap`);
    expect(recap.output_truncated).toBeUndefined();
  });
});
