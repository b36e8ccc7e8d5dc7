// watchDisk (server/rte/disk-usage.ts) on one folder for a few seconds, run by a test as the
// folder's owner (an RTE that is not root runs playbooks as its own user); prints the verdict:
// "exceeded: REASON", "not exceeded" or "failed: ERROR", and whether the folder could then be
// removed ("removed" or "left: ERROR").
// Usage: tsx watch-disk-once.ts FOLDER LIMIT_BYTES
import fs from "node:fs";
import { removeTree, watchDisk } from "../../server/rte/disk-usage";

const [folder, limit] = [process.argv[2]!, Number(process.argv[3])];
let verdict = "not exceeded";
const stop = watchDisk({
  subject: "the job",
  folder,
  limit,
  intervalSeconds: 0.2,
  exceeded: (reason) => (verdict = `exceeded: ${reason}`),
  failed: (e) => (verdict = `failed: ${String(e)}`),
});
setTimeout(() => {
  stop();
  console.log(verdict);
  removeTree(folder).then(
    () => console.log(fs.existsSync(folder) ? "left: still there" : "removed"),
    (error: unknown) => console.log(`left: ${String(error)}`),
  );
}, 3000);
