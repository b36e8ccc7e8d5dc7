/**
 * Attack 3: masking cost with many secrets. 50 secrets of mixed kinds (ASCII tokens, passwords
 * with quotes/backslashes/non-ASCII, long keys), 100,000 lines of ansible-like output, masked
 * through OutputBatcher as the RTE does (64 KB writes, 500 ms interval driven by hand). Also
 * pending() on a long partial line, and a 1 MB line.
 * Run: npx tsx test/attack/mask-many.ts
 */
import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";

function rnd(n: number, alphabet: string, seed: { s: number }): string {
  let out = "";
  for (let i = 0; i < n; i++) {
    seed.s = (seed.s * 1103515245 + 12345) & 0x7fffffff;
    out += alphabet[seed.s % alphabet.length];
  }
  return out;
}
const seed = { s: 42 };
const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const hostile = alnum + "\"\\'é €/ -+=%&<>\n";
const secrets: string[] = [];
for (let i = 0; i < 30; i++) secrets.push(rnd(16 + (i % 20), alnum, seed));
for (let i = 0; i < 15; i++) secrets.push(rnd(12 + i, hostile, seed));
for (let i = 0; i < 5; i++) secrets.push(rnd(400 + i * 200, alnum + "/+\n", seed));

const kinds = process.argv[3] ?? "all";
if (kinds !== "all") {
  const [from, to] = kinds.split(":").map(Number);
  secrets.splice(0, secrets.length, ...secrets.slice(from, to));
}
const n = Number(process.argv[2] ?? 100_000);
const lines: string[] = [];
for (let i = 0; i < n; i++) {
  const k = i % 10;
  if (k === 0) lines.push(`TASK [role : task number ${i}] ${"*".repeat(60)}`);
  else if (k === 1) lines.push(`ok: [host-${i % 97}.example.com] => {"changed": false, "msg": "All items completed ${i}"}`);
  else if (k === 2) lines.push(`    "stdout": "${Buffer.from(rnd(57, alnum, seed)).toString("base64")}\\n${rnd(30, alnum, seed)}",`);
  else if (k === 3) lines.push(`changed: [db] => (item={'name': 'u${i}', 'path': '/var/lib/x/${i}', "q": "a\\\\\\"b"})`);
  else if (k === 4) lines.push(Buffer.from(rnd(57, alnum, seed)).toString("base64"));
  else if (k === 5) lines.push(`    - '${rnd(70, alnum + " ,", seed)}'`);
  else lines.push(`  ${rnd(90, alnum + " .,:;'\"\\{}[]", seed)}`);
}
const text = `${lines.join("\n")}\n`;
const mb = Buffer.byteLength(text) / 1e6;

let t = performance.now();
const mask = createMasker(secrets);
const build = performance.now() - t;

t = performance.now();
const masked = mask(text);
const whole = performance.now() - t;
if (masked.length === 0) throw new Error();

// Through the batcher, 64 KB writes, a flush per write (as a busy playbook would).
let out = 0;
const b = new OutputBatcher({ intervalMs: 1e9, maxBatchBytes: 64 * 1024, maxBuffer: 1e9, mask, emit: (items) => (out += items.length) });
t = performance.now();
for (let i = 0; i < text.length; i += 65536) b.write("stdout", text.slice(i, i + 65536));
b.stop();
const batched = performance.now() - t;

// pending() on a long partial line with no line break (a progress line, a 1 MB json)
const long = rnd(1_000_000, alnum + ' ,\\"', seed);
t = performance.now();
mask.pending!(long);
const pend = performance.now() - t;
t = performance.now();
mask(long);
const longLine = performance.now() - t;

console.log(
  JSON.stringify({
    secrets: secrets.length,
    lines: n,
    MB: +mb.toFixed(1),
    buildMs: Math.round(build),
    wholeMs: Math.round(whole),
    wholeMBps: +(mb / (whole / 1000)).toFixed(1),
    batcherMs: Math.round(batched),
    batcherMBps: +(mb / (batched / 1000)).toFixed(1),
    pending1MBms: Math.round(pend),
    mask1MBlineMs: Math.round(longLine),
  }),
);
