// watchDisk on a folder with a directory its owner closed (chmod 000), run as that owner (an
// RTE that is not root runs playbooks as its own user). Usage: attack4-du-hidden.ts FOLDER LIMIT_BYTES
import { watchDisk } from "../../server/rte/disk-usage";
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
}, 3000);
