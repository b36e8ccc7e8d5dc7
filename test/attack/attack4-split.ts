import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";
const secret = "Xk9#pQ2!vB7$wL4mRt8Zq";
const m = createMasker([secret]);
function wins(s: string) {
  const w: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const bytes = Buffer.from(s).subarray(skip);
    const mid = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
    for (let at = 0; at + 8 <= mid.length; at += 2) w.push(mid.slice(at, at + 8));
  }
  return w;
}
const W = wins(secret);
const leaked = (o: string) => W.filter((w) => o.includes(w));
function run(steps: ((b: OutputBatcher) => void)[]) {
  const emitted: UnnumberedItem[][] = [];
  const b = new OutputBatcher({ intervalMs: 500, maxBatchBytes: 65536, maxBuffer: 50e6, mask: m, emit: (i) => emitted.push(i) });
  for (const s of steps) s(b);
  b.stop();
  return emitted
    .flat()
    .map((i) => (i.kind === "output" ? i.text : i.kind === "log" ? i.text : i.kind === "events" ? JSON.stringify(i.events) : ""))
    .join("|");
}
for (const col of [64, 76])
  for (let plen = 30; plen < 60; plen += 1) {
    const b64 = Buffer.from("P".repeat(plen) + secret + "S".repeat(30)).toString("base64");
    const lines: string[] = [];
    for (let i = 0; i < b64.length; i += col) lines.push(b64.slice(i, i + col));
    const whole = m(lines.join("\n") + "\n");
    if (leaked(whole).length) {
      console.log("whole leaks", col, plen);
      continue;
    }
    for (let k = 1; k < lines.length; k++) {
      const ev = run([
        (b) => b.write("stdout", lines.slice(0, k).join("\n") + "\n"),
        (b) => b.writeEvents('{"e":1}\n'),
        (b) => b.write("stdout", lines.slice(k).join("\n") + "\n"),
      ]);
      const lg = run([
        (b) => b.write("stdout", lines.slice(0, k).join("\n") + "\n"),
        (b) => b.log("runner line"),
        (b) => b.write("stdout", lines.slice(k).join("\n") + "\n"),
      ]);
      const se = run([
        (b) => b.write("stdout", lines.slice(0, k).join("\n") + "\n"),
        (b) => b.write("stderr", "warn\n"),
        (b) => b.write("stdout", lines.slice(k).join("\n") + "\n"),
      ]);
      if (leaked(ev).length || leaked(lg).length || leaked(se).length)
        console.log(col, plen, k, "event", leaked(ev), "log", leaked(lg), "stderr", leaked(se), JSON.stringify(lg).slice(0, 300));
    }
  }
