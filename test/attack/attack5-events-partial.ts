/**
 * Attack 5: an events line with no line break. The batcher keeps it in eventsPartial and splits
 * the whole of it at every read of the events pipe: time per 64 KiB read as it grows, and memory.
 * Usage: npx tsx test/attack/attack5-events-partial.ts [MiB]
 */
import { OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";

const mib = Number(process.argv[2] ?? 64);
const b = new OutputBatcher({
  intervalMs: 500,
  maxBatchBytes: 65536,
  maxBuffer: 50e6,
  mask: createMasker(["Xk9#pQ2!vB7$wL4mRt8Zq"]),
  emit: () => undefined,
});
const chunk = "a".repeat(65536);
const t0 = Date.now();
let last = t0;
let worst = 0;
for (let i = 1; i <= mib * 16; i++) {
  const s = Date.now();
  b.writeEvents(chunk);
  worst = Math.max(worst, Date.now() - s);
  if (i % (16 * 8) === 0) {
    const now = Date.now();
    console.log(
      `${i / 16} MiB: last 8 MiB ${now - last} ms, worst read ${worst} ms, rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`,
    );
    last = now;
  }
}
console.log(`total ${Date.now() - t0} ms`);
