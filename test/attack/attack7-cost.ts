/**
 * Attack 7 on issue 34: the cost of mask() and pending() on shapes built from escapes other than
 * SGR colours and from the masker's break characters, at 1x/2x/4x sizes. A ratio near 4 at
 * 2x the size is quadratic. Usage: npx tsx test/attack/attack7-cost.ts [baseKiB] [secretLength] [shape,...]
 */
import { createMasker } from "../../server/security/mask";

const base = Number(process.argv[2] ?? 32) * 1024;
const length = Number(process.argv[3] ?? 4096);
const secret = ("k".repeat(16) + Buffer.from(Array.from({ length: length * 2 }, (_, i) => (i * 7919) % 256)).toString("base64")).slice(
  0,
  length,
);
const mask = createMasker([secret, "Wr4ngl3r-s3cret-7f2a9c"]);
const A64 = "QUJD".repeat(16);
const shapes: Record<string, (n: number) => string> = {
  escOpen: (n) => "\n" + "\x1b[".repeat(n / 2) + "x",
  escBare: (n) => "\n" + "\x1b".repeat(n) + "x",
  paramRun: (n) => "\n\x1b[" + "0;".repeat(n / 2) + "x",
  mNoEsc: (n) => "\n" + "[0m".repeat(n / 3) + "x",
  digitsM: (n) => "\n" + "0;m".repeat(n / 3) + "x",
  oscRun: (n) => "\n" + "\x1b]0;t\x07".repeat(n / 6) + "x",
  elRun: (n) => "\n" + "\x1b[K".repeat(n / 3) + "x",
  c1Run: (n) => "\n" + "\x9b0m".repeat(n / 3) + "x",
  escNlEsc: (n) => "\x1b[0m\n\x1b[0;32m".repeat(n / 12) + "x",
  b64LinesEl: (n) => `\x1b[0;32m${A64}\x1b[K\n`.repeat(n / 76) + "x",
  b64LinesColour: (n) => `\x1b[0;32m${A64}\x1b[0m\n`.repeat(n / 76) + A64.slice(0, 30),
  b64LinesBlank: (n) => `${A64}\n\n`.repeat(n / 66) + "!",
  b64LinesEscN: (n) => `${A64}\\\\n`.repeat(n / 67) + "!",
  listQuotes: (n) => '\n["' + '\\\\\\",'.repeat(n / 5) + "x",
  commaSpace: (n) => "\n" + ", ".repeat(n / 2) + "x",
  dashNl: (n) => "\n" + "\n- ".repeat(n / 3) + "x",
  escN: (n) => "\n" + "\\n".repeat(n / 2) + "x",
  escR: (n) => "\n" + "\\r\\n".repeat(n / 4) + "x",
  pctRun: (n) => "\n" + "%C3".repeat(n / 3) + "x",
  backslashRun: (n) => "\n" + "\\".repeat(n) + "x",
  b64Short: (n) => ("QUJD".repeat(18) + "\n").repeat(n / 73) + "x",
  b64Odd: (n) => (A64 + "A\n").repeat(n / 66) + "x",
  secretPrefixes: (n) => (secret.slice(0, 40) + "\n").repeat(n / 41) + "x",
};
const only = process.argv[4]?.split(",");
for (const [name, make] of Object.entries(shapes)) {
  if (only && !only.includes(name)) continue;
  const times: string[] = [];
  for (const factor of [1, 2, 4]) {
    const text = make(base * factor);
    let t = performance.now();
    mask(text);
    const m = performance.now() - t;
    t = performance.now();
    mask.pending?.(text);
    const p = performance.now() - t;
    times.push(`${factor}x ${text.length}: mask ${m.toFixed(0)} ms, pending ${p.toFixed(0)} ms`);
  }
  console.log(`${name}: ${times.join("; ")}`);
}
