/**
 * Attack 5: cost of maskOutputPieces when a stream's pieces (split by stderr lines) hold a
 * multi-line secret across them, so the run masked whole loses line ends and is cut and masked
 * again (SPLIT_TRIES per halving). Usage: npx tsx test/attack/attack5-pieces-cost.ts [pairs] [secrets]
 */
import { OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";

const pairs = Number(process.argv[2] ?? 200);
const count = Number(process.argv[3] ?? 30);
const secrets = Array.from({ length: count }, (_, i) => `sec${i}-${"x".repeat(12)}-a\nsec${i}-second-line-b`);
const mask = createMasker(secrets);
for (const mode of ["plain lines", "secret across every stderr line"]) {
  const b = new OutputBatcher({ intervalMs: 500, maxBatchBytes: 65536, maxBuffer: 50e6, mask, emit: () => undefined });
  const pad = "y".repeat(100);
  for (let i = 0; i < pairs; i++) {
    const [first, second] = secrets[i % count]!.split("\n");
    if (mode === "plain lines") b.write("stdout", `${pad} ${i}\n`);
    else b.write("stdout", `${second} ${pad}\n${pad} ${first}\n`);
    b.write("stderr", `warn ${i}\n`);
  }
  const t = Date.now();
  b.flush(false);
  b.stop();
  console.log(`${mode}: ${pairs} stdout pieces between stderr lines, ${count} secrets: flush ${Date.now() - t} ms`);
}
