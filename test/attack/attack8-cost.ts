/**
 * Attack 8 on issue 34: the cost of mask() and pending() on shapes aimed at the second view of
 * the text (server/security/mask-rendered.ts: escaped controls decoded, hidden ranges line by line
 * when an OSC is present, matches mapped back), at 1x/2x/4x sizes. A ratio near 4 at 2x the size
 * is quadratic. Usage: npx tsx test/attack/attack8-cost.ts [baseKiB] [shape,...]
 */
import { createMasker } from "../../server/security/mask";

const base = Number(process.argv[2] ?? 64) * 1024;
const secret = "Wr4ngl3r-s3cret-7f2a9c";
const long = ("k".repeat(16) + Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 256)).toString("base64")).slice(0, 4096);
const mask = createMasker([secret, long]);
const coloured = [...secret].join("\x1b[K");
const jsonColoured = [...secret].join("\\u001b[K");
const shapes: Record<string, (n: number) => string> = {
  jsonEscRun: (n) => "\n" + "\\u001b".repeat(n / 6) + "x",
  jsonOscOpen: (n) => "\n" + "\\u001b]".repeat(n / 7) + "x",
  jsonCsiOpen: (n) => "\n" + "\\u001b[".repeat(n / 7) + "x",
  jsonParamRun: (n) => "\n\\u001b[" + "0;".repeat(n / 2) + "x",
  fourBackslashes: (n) => "\n" + "\\\\\\\\u001b".repeat(n / 9) + "x",
  backslashU00: (n) => "\n" + "\\u00".repeat(n / 4) + "x",
  oscPerLine: (n) => "\x1b]0;t\n".repeat(n / 5) + "x",
  oscThenLines: (n) => "\x1b]0;" + "ab\n".repeat(n / 3) + "x",
  escapedOscThenLines: (n) => "\\u001b]0;" + "ab\n".repeat(n / 3) + "x",
  colouredSecrets: (n) => (coloured + "\n").repeat(n / (coloured.length + 1)) + "x",
  colouredSecretsOneLine: (n) => (coloured + " ").repeat(n / (coloured.length + 1)) + "x",
  jsonColouredSecrets: (n) => (jsonColoured + ", ").repeat(n / (jsonColoured.length + 2)) + "x",
  colouredPrefixes: (n) => (coloured.slice(0, 40) + "\x1b[K").repeat(n / 43) + "x",
  privateUse: (n) => Array.from({ length: n / 2 }, (_, i) => String.fromCharCode(0xe000 + (i % 6400)) + "\x1b").join("") + "x",
  c1Mixed: (n) => "\n" + "\x9b\\u009b\x1b\\x1b".repeat(n / 11) + "x",
  crRun: (n) => "\n" + "W\r".repeat(n / 2) + "x",
  nulJson: (n) => "\n" + "\\u0000W".repeat(n / 7) + "x",
};
const only = process.argv[3]?.split(",");
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
