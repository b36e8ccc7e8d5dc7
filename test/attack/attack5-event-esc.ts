/**
 * Attack 5: one event (the `stats` event of set_stats data, capped at 1 MiB by the callback
 * plugin; or a task_start whose name is not capped) holding a string of repeated `ESC[0m`:
 * how long the RTE's flush masks it, in one synchronous call. Usage:
 * npx tsx test/attack/attack5-event-esc.ts [KB,KB,...]
 */
import { OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";

const sizes = (process.argv[2] ?? "100,200,400").split(",").map(Number);
const mask = createMasker(["Xk9#pQ2!vB7$wL4mRt8Zq"]);
for (const kb of sizes) {
  const blob = "\x1b[0m".repeat(Math.ceil((kb * 1000) / 4));
  const line = JSON.stringify({ v: 1, type: "stats", ts: 1, hosts: [], custom: { _run: { blob } } }) + "\n";
  const b = new OutputBatcher({ intervalMs: 500, maxBatchBytes: 65536, maxBuffer: 50e6, mask, emit: () => undefined });
  b.writeEvents(line);
  const t = Date.now();
  b.flush(false);
  console.log(`${kb} KB of ESC[0m in one event (${line.length} characters of JSON): one flush ${Date.now() - t} ms`);
}
