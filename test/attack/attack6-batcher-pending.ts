/**
 * Attack 6 on issue 34: the pending() shape of attack6-pending-cost.ts (a line break, a run of
 * `ESC[0m`, one more character, no line break) through the OutputBatcher as the RTE feeds it
 * (64 KiB reads), with one 4,096-character secret: the worst single call. Usage:
 * npx tsx test/attack/attack6-batcher-pending.ts [resets,...] [secretLength]
 */
import { randomBytes } from "node:crypto";
import { OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";

const counts = (process.argv[2] ?? "16384,65536").split(",").map(Number);
const length = Number(process.argv[3] ?? 4096);
const mask = createMasker([randomBytes(length).toString("base64url").slice(0, length)]);
for (const count of counts) {
  const text = "PLAY [x]\n" + "\x1b[0m".repeat(count) + "x";
  const b = new OutputBatcher({ intervalMs: 500, maxBatchBytes: 65536, maxBuffer: 50e6, mask, emit: () => undefined });
  let worst = 0;
  const t = Date.now();
  for (let at = 0; at < text.length; at += 65536) {
    const s = Date.now();
    b.write("stdout", text.slice(at, at + 65536));
    worst = Math.max(worst, Date.now() - s);
  }
  for (let i = 0; i < 2; i++) {
    const s = Date.now();
    b.flush(false);
    worst = Math.max(worst, Date.now() - s);
    await new Promise((r) => setTimeout(r, 600));
  }
  const s = Date.now();
  b.stop();
  worst = Math.max(worst, Date.now() - s);
  console.log(`${count} resets (${text.length} chars), secret ${length}: total ${Date.now() - t - 1200} ms, worst single call ${worst} ms`);
}
