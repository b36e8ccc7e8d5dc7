/**
 * Attack 8 (attack8-copy-race.ts, attack8-copy-fifo-hangs-rte.test.ts): copies `tree` into
 * `scratch/copy-N` `copies` times with copyTree, as the RTE does without the sandbox, removing each
 * copy; prints each copy's number as it starts and `done` at the end.
 * Usage: npx tsx test/attack/attack8-copy-loop.ts TREE SCRATCH COPIES
 */
import fs from "node:fs";
import path from "node:path";
import { copyTree } from "../../server/rte/copy-tree";

const [tree, scratch, copies] = [process.argv[2]!, process.argv[3]!, Number(process.argv[4] ?? 1000)];
// Each copy awaited, as the RTE does: a copy that never ends leaves `done` unprinted.
for (let i = 0; i < copies; i++) {
  process.stdout.write(`copy ${i}\n`);
  const to = path.join(scratch, `copy-${i}`);
  try {
    await copyTree(tree, to);
  } catch {
    // The swap made it fail (ENOENT, EINVAL): the install would fail, not hang.
  }
  fs.rmSync(to, { recursive: true, force: true });
}
process.stdout.write("done\n");
