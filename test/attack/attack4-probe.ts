import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";

const secret = "Xk9#pQ2!vB7$wL4mRt8Zq";
const m = createMasker([secret]);
function b64wrapped(prefix: string, s: string, col = 76) {
  const b = Buffer.from(prefix + s).toString("base64");
  const lines = [];
  for (let i = 0; i < b.length; i += col) lines.push(b.slice(i, i + col));
  return lines;
}
function leaks(out: string, s: string) {
  // any 8-char window of base64 of s at any alignment, or the raw secret
  const wins: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const bytes = Buffer.from(s).subarray(skip);
    const mid = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
    for (let at = 0; at + 8 <= mid.length; at += 2) wins.push(mid.slice(at, at + 8));
  }
  return out.includes(s) || wins.some((w) => out.includes(w));
}
// Case 1: whole text, wrapped base64 in one piece
const prefix = "A".repeat(60);
const lines = b64wrapped(prefix, secret);
console.log(
  "lines",
  lines.map((l) => l.length),
);
const text = lines.join("\n") + "\n";
console.log("whole masked leaks?", leaks(m(text), secret), JSON.stringify(m(text)));

// Case 2: batcher with an event between lines
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
// find the split line index where secret spans
for (let k = 1; k < lines.length; k++) {
  const out = run([
    (b) => b.write("stdout", lines.slice(0, k).join("\n") + "\n"),
    (b) => b.writeEvents(JSON.stringify({ event: "x" }) + "\n"),
    (b) => b.write("stdout", lines.slice(k).join("\n") + "\n"),
  ]);
  console.log("event split at", k, "leaks?", leaks(out, secret));
  const out2 = run([
    (b) => b.write("stdout", lines.slice(0, k).join("\n") + "\n"),
    (b) => b.log("runner says hi"),
    (b) => b.write("stdout", lines.slice(k).join("\n") + "\n"),
  ]);
  console.log("log split at", k, "leaks?", leaks(out2, secret));
  const out3 = run([
    (b) => b.write("stdout", lines.slice(0, k).join("\n") + "\n"),
    (b) => b.write("stderr", "warning\n"),
    (b) => b.write("stdout", lines.slice(k).join("\n") + "\n"),
  ]);
  console.log("stderr split at", k, "leaks?", leaks(out3, secret));
}
// Case 3: multi-line secret with CRLF and short lines
const ml = "line-one-abc\r\nline-two-def\r\nxyz\r\n12345";
const mm = createMasker([ml]);
for (const t of [
  ml,
  ml.replace(/\r\n/g, "\n"),
  "+line-one-abc\n+line-two-def\n",
  ml
    .split("\r\n")
    .map((l) => "  " + l)
    .join("\n"),
  JSON.stringify(ml),
]) {
  console.log(JSON.stringify(t), "=>", JSON.stringify(mm(t)));
}
const shortLines = "ab12cd\nef34gh\nij56kl\nmn78op";
const ms = createMasker([shortLines]);
for (const t of [shortLines, "  ab12cd\n  ef34gh\n  ij56kl\n  mn78op", "+ab12cd\n+ef34gh\n+ij56kl\n+mn78op"])
  console.log(JSON.stringify(t), "=>", JSON.stringify(ms(t)));
