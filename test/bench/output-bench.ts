/**
 * Output pipeline benchmark: a playbook printing N lines, run (1) directly with
 * ansible-playbook into /dev/null, the baseline, and (2) through Playform: the app, a real RTE
 * process, batching, masking, the spool, socket.io, storage in SQLite, read back over the API.
 * Prints both side by side: the overhead Playform adds to a chatty job.
 *
 *   npm run build && npx tsx test/bench/output-bench.ts [LINES]
 */
import { execa } from "execa";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { apiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform } from "../support/playform";

const LINES = Number(process.argv[2] ?? 100_000);
const FORM_DIR = path.resolve(import.meta.dirname, "../fixtures/forms-bench/bulk-output");

async function direct(): Promise<{ seconds: number; bytes: number }> {
  const started = performance.now();
  const run = await execa("ansible-playbook", ["-i", "inventory.ini", "-e", JSON.stringify({ lines: LINES }), "playbook.yml"], {
    cwd: FORM_DIR,
    env: { ANSIBLE_FORCE_COLOR: "1", PYTHONUNBUFFERED: "1" },
    encoding: "buffer",
  });
  return { seconds: (performance.now() - started) / 1000, bytes: run.stdout.length };
}

async function throughPlayform(): Promise<{ seconds: number; bytes: number; chunks: number; lines: number; peakRssMb: number }> {
  const app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.dirname(FORM_DIR) } });
  try {
    const api = apiClient(app, await adminToken(app));
    const started = performance.now();
    const id = await api.launch("bulk-output", { lines: LINES });
    const job = await api.waitForEnd(id, 600_000);
    const seconds = (performance.now() - started) / 1000;
    if (job.status !== "success") throw new Error(`job ended ${job.status}: ${job.statusReason}`);
    const output = await api.output(id);
    const [row] = await dbQuery<{ n: number }>(app, 'SELECT COUNT(*) AS n FROM "JobChunk" WHERE "jobId" = $1 AND kind = $2', [
      id,
      "output",
    ]);
    const lines = (output.match(/line \d{8} of the bulk output benchmark/g) ?? []).length;
    const rss = Number((await execa("ps", ["-o", "rss=", "-p", String(app.pid)])).stdout.trim()) / 1024;
    return { seconds, bytes: Buffer.byteLength(output), chunks: Number(row?.n ?? 0), lines, peakRssMb: rss };
  } finally {
    await app.stop();
  }
}

const mb = (bytes: number) => bytes / 2 ** 20;
console.log(`output pipeline benchmark: a playbook printing ${LINES.toLocaleString("en")} lines`);
const base = await direct();
const pf = await throughPlayform();
if (pf.lines !== LINES) throw new Error(`Playform stored ${pf.lines} of ${LINES} lines`);
console.log("");
console.log("path                                    seconds    output MB   MB/s");
console.log(
  `ansible-playbook > /dev/null (baseline) ${base.seconds.toFixed(2).padStart(7)}   ${mb(base.bytes).toFixed(1).padStart(9)}   ${(mb(base.bytes) / base.seconds).toFixed(1).padStart(5)}`,
);
console.log(
  `through Playform (launch -> stored)     ${pf.seconds.toFixed(2).padStart(7)}   ${mb(pf.bytes).toFixed(1).padStart(9)}   ${(mb(pf.bytes) / pf.seconds).toFixed(1).padStart(5)}`,
);
console.log("");
console.log(
  `Playform adds ${(pf.seconds - base.seconds).toFixed(2)} s (${((pf.seconds / base.seconds - 1) * 100).toFixed(0)}%) to this job; ` +
    `all ${pf.lines.toLocaleString("en")} lines stored in ${pf.chunks} chunks; app RSS after the job ${pf.peakRssMb.toFixed(0)} MB`,
);
