/**
 * Attack 5: cost of the batcher on runs of `ESC[0m` (mask() on ~80 KB of them was ~1.5 s: is a
 * single flush long enough to stall the RTE past its heartbeat?). Usage:
 * npx tsx test/attack/attack5-esc-cost.ts [KB,KB,...] [newlines]
 */
import { OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";

const sizes = (process.argv[2] ?? "64,128,256").split(",").map(Number);
const lines = process.argv[3] === "newlines";
const mask = createMasker(["Xk9#pQ2!vB7$wL4mRt8Zq", "monitoring-token-8d7f6e5a4b3c2d1e"]);
for (const kb of sizes) {
  const unit = lines ? "\x1b[0m\n" : "\x1b[0m";
  const text = unit.repeat(Math.ceil((kb * 1024) / unit.length));
  let t = Date.now();
  mask(text);
  const whole = Date.now() - t;
  const b = new OutputBatcher({ intervalMs: 500, maxBatchBytes: 65536, maxBuffer: 50e6, mask, emit: () => undefined });
  let worst = 0;
  t = Date.now();
  for (let at = 0; at < text.length; at += 65536) {
    const s = Date.now();
    b.write("stdout", text.slice(at, at + 65536));
    worst = Math.max(worst, Date.now() - s);
  }
  const s = Date.now();
  b.flush(false);
  await new Promise((r) => setTimeout(r, 600));
  b.flush(false);
  worst = Math.max(worst, Date.now() - s);
  const s2 = Date.now();
  b.stop();
  worst = Math.max(worst, Date.now() - s2);
  console.log(
    `${kb} KB${lines ? " (lines)" : ""}: mask whole ${whole} ms; batcher total ${Date.now() - t - 600} ms, worst single call ${worst} ms`,
  );
}
