// The stream cap (maxBuffer) falling anywhere in labelled wrapped base64, in several shapes (attack 4).
import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
function windows(s: string) {
  const w: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const bytes = Buffer.from(s).subarray(skip);
    const m = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
    for (let at = 0; at + 8 <= m.length; at += 2) w.push(m.slice(at, at + 8));
  }
  return w;
}
const W = windows(secret);
for (const col of [64, 76])
  for (const pre of [10, 30, 45]) {
    const b64 = Buffer.from("x".repeat(pre) + secret + "/" + "z".repeat(80)).toString("base64");
    const L = b64.match(new RegExp(`.{1,${col}}`, "g"))!;
    const shapes: [string, string, (s: string) => string][] = [
      ["label raw", `token: ${L.join("\n")}\n`, (s) => s.replace(/\n/g, "")],
      [
        "coloured",
        `\x1b[0;32mtoken: ${L.join("\x1b[0m\n\x1b[0;32m")}\x1b[0m\n`,
        // eslint-disable-next-line no-control-regex -- ansible colours
        (s) => s.replace(/\x1b\[[0-9;]*m/g, "").replace(/\n/g, ""),
      ],
      ["json stdout", `    "stdout": "${L.join("\\n")}",\n`, (s) => s.replace(/\\n/g, "")],
      ["stdout_lines", `    "stdout_lines": [\n        "${L.join('",\n        "')}"\n    ]\n`, (s) => s.replace(/",\n {8}"/g, "")],
    ];
    for (const [name, text, join] of shapes) {
      const filler = "ok: [localhost]\n".repeat(10);
      const bad: number[] = [];
      for (let cap = filler.length + 1; cap < filler.length + text.length; cap++) {
        const out: string[] = [];
        const b = new OutputBatcher({
          intervalMs: 500,
          maxBatchBytes: 65536,
          maxBuffer: cap,
          mask: createMasker([secret]),
          emit: (i) => i.forEach((x) => x.kind === "output" && out.push(x.text)),
        });
        b.write("stdout", filler);
        b.write("stdout", text);
        b.stop();
        const o = join(out.join(""));
        if (W.some((w) => o.includes(w))) bad.push(cap - filler.length);
      }
      console.log(col, pre, name, bad.length ? `LEAKS at ${bad.length} caps e.g. ${bad.slice(0, 6)} of ${text.length}` : "held");
    }
  }
