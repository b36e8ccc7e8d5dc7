// A pause at every cut inside labelled wrapped base64, in more shapes than the third round's
// test (CRLF, colours, YAML list, stdout_lines one per line, JSON in JSON, repr list), 64 and 76 columns.
import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";
let now = 1_700_000_000_000;
Date.now = () => now;
function printed(secret: string, writes: string[]): string {
  const emitted: UnnumberedItem[][] = [];
  const b = new OutputBatcher({
    intervalMs: 500,
    maxBatchBytes: 65536,
    maxBuffer: 50e6,
    mask: createMasker([secret]),
    emit: (i) => emitted.push(i),
  });
  for (const [i, w] of writes.entries()) {
    if (i > 0)
      for (let k = 0; k < 4; k++) {
        now += 500;
        b.flush(false);
      }
    b.write("stdout", w);
  }
  now += 500;
  b.flush(false);
  b.stop();
  return emitted
    .flat()
    .map((i) => (i.kind === "output" ? i.text : ""))
    .join("");
}
function windows(secret: string) {
  const w: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const bytes = Buffer.from(secret).subarray(skip);
    const m = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
    for (let at = 0; at + 8 <= m.length; at += 2) w.push(m.slice(at, at + 8));
  }
  return w;
}
const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
const W = windows(secret);
for (const col of [64, 76])
  for (const pre of [10, 45]) {
    const b64 = Buffer.from("x".repeat(pre) + secret + "/" + "z".repeat(80)).toString("base64");
    const L = b64.match(new RegExp(`.{1,${col}}`, "g"))!;
    const C = "\x1b[0;32m",
      R = "\x1b[0m";
    const shapes: [string, string, (s: string) => string][] = [
      ["CRLF", `token: ${L.join("\r\n")}\r\n`, (s) => s.replace(/\r\n/g, "")],
      // eslint-disable-next-line no-control-regex -- ansible colours
      ["coloured lines", `${C}token: ${L.join(`${R}\n${C}`)}${R}\n`, (s) => s.replace(/\x1b\[[0-9;]*m/g, "").replace(/\n/g, "")],
      ["YAML list", `  stdout_lines:\n  - ${L.join("\n  - ")}\n`, (s) => s.replace(/\n {2}- /g, "")],
      [
        "stdout_lines one per line",
        `    "stdout_lines": [\n        "${L.join('",\n        "')}"\n    ]\n`,
        (s) => s.replace(/",\n {8}"/g, ""),
      ],
      ["JSON in JSON", `"msg": "{\\"stdout\\": \\"${L.join("\\\\n")}\\"}"\n`, (s) => s.replace(/\\\\n/g, "")],
      ["repr list", `msg: ['${L.join("', '")}']\n`, (s) => s.replace(/', '/g, "")],
      ["YAML block", `  content: |\n    ${L.join("\n    ")}\n`, (s) => s.replace(/\n {4}/g, "")],
    ];
    for (const [name, text, join] of shapes) {
      const whole = join(printed(secret, [text]));
      if (W.some((w) => whole.includes(w))) {
        console.log(col, pre, name, "LEAKS WHOLE");
        continue;
      }
      const bad: number[] = [];
      for (let at = 1; at < text.length; at++) {
        const out = join(printed(secret, [text.slice(0, at), text.slice(at)]));
        if (W.some((w) => out.includes(w))) bad.push(at);
      }
      console.log(col, pre, name, bad.length ? `leaks at ${bad.length} cuts, e.g. ${bad.slice(0, 5)} of ${text.length}` : "held");
    }
  }
