// Does output after a printed (masked) secret go out live, or wait? (attack 4)
import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";
const secret = process.argv[2] ?? "Zq8vT3nW6pK1rY5mC9xB2dF7hJ4gL0sA";
const emitted: UnnumberedItem[][] = [];
let now = 1_700_000_000_000;
Date.now = () => now;
const b = new OutputBatcher({
  intervalMs: 500,
  maxBatchBytes: 65536,
  maxBuffer: 50e6,
  mask: createMasker([secret]),
  emit: (i) => emitted.push(i),
});
b.write("stdout", `TASK [show] ***\nok: [localhost] => {"msg": "${secret}"}\n`);
for (let i = 0; i < 40; i++) {
  now += 1000;
  b.flush(false);
  b.write("stdout", `line ${i} of progress\n`);
}
now += 1000;
b.flush(false);
now += 1000;
b.flush(false);
const live = emitted
  .flat()
  .map((i) => (i.kind === "output" ? i.text : ""))
  .join("");
console.log("live before end:", JSON.stringify(live.slice(-200)), "lines:", live.split("\n").length - 1);
b.stop();
