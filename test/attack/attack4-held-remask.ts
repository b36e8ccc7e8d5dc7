// held() masks the partial line (up to 64 KiB) at every flush while it ends in a run of base64
// characters: with a costly secret, every interval costs that again while the playbook is silent.
import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
let now = 1_700_000_000_000;
Date.now = () => now;
const secrets = [`${" ".repeat(100)}x1yz`];
const b = new OutputBatcher({ intervalMs: 500, maxBatchBytes: 65536, maxBuffer: 50e6, mask: createMasker(secrets), emit: () => {} });
b.write("stdout", `${" ".repeat(60_000)}abc`);
for (let k = 0; k < 10; k++) {
  now += 500;
  const t = performance.now();
  b.flush(false);
  console.log(`flush ${k}: ${(performance.now() - t).toFixed(0)} ms`);
}
b.stop();
