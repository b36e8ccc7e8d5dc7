// Is the last word of a partial line held back while the playbook is silent? (attack 4)
import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
let now = 1_700_000_000_000;
Date.now = () => now;
for (const partial of ["Waiting for host", "Press enter to continue", "Progress 45%", "  deploying"]) {
  const out: string[] = [];
  const b = new OutputBatcher({
    intervalMs: 500,
    maxBatchBytes: 65536,
    maxBuffer: 50e6,
    mask: createMasker(["Zq8vT3nW6pK1rY5m"]),
    emit: (i) => i.forEach((x) => x.kind === "output" && out.push(x.text)),
  });
  b.write("stdout", `TASK [wait] ***\n${partial}`);
  for (let k = 0; k < 120; k++) {
    now += 500;
    b.flush(false);
  } // one minute of silence
  console.log(JSON.stringify(partial), "-> after 60 s:", JSON.stringify(out.join("")));
  b.stop();
}
