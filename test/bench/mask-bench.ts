/**
 * Masker benchmark: how fast createMasker's function runs over typical playbook output, with
 * a realistic set of secrets (a few passwords with quotes, backslashes and non-ASCII
 * characters, a secret variable, an ssh private key whole and line by line). The output
 * benchmark (output-bench.ts) has no secrets, so it never exercises this path.
 *
 *   npx tsx test/bench/mask-bench.ts [MEGABYTES]
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createMasker } from "../../server/security/mask";

const MEGABYTES = Number(process.argv[2] ?? 32);

function privateKey(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mask-bench-"));
  try {
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path.join(dir, "k")]);
    return fs.readFileSync(path.join(dir, "k"), "utf8");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const key = privateKey();
const secrets = [
  'pa"ss\\word',
  "pässwörd-ünïcode",
  "it's-a-secret",
  "tab\there",
  "S3cret!@/x y",
  "monitoring-token-8d7f6e5a4b3c2d1e",
  key,
  ...key.split("\n").filter((line) => line && !line.startsWith("-----")),
];

// Output shaped like ansible's: banners, ok/changed lines, result JSON; one secret per ~200 lines.
const lines: string[] = [];
for (let i = 0; i < 2_000; i++) {
  lines.push(
    `TASK [Configure service ${i}] ${"*".repeat(60)}`,
    `ok: [web-${i % 17}.example.com] => {"changed": false, "msg": "line ${i} of the benchmark: all good \\"quoted\\" ä"}`,
    `changed: [db-${i % 5}.example.com] => (item={'name': 'user${i}', 'groups': ['wheel', 'adm']})`,
  );
  if (i % 70 === 0) lines.push(`ok: [localhost] => {"msg": "token=${JSON.stringify(secrets[i % 6]).slice(1, -1)}"}`);
}
const sample = lines.join("\n") + "\n";
const rounds = Math.max(1, Math.round((MEGABYTES * 2 ** 20) / Buffer.byteLength(sample)));

const started = performance.now();
const mask = createMasker(secrets);
const built = performance.now() - started;
let masked = 0;
mask(sample); // warm-up: compile the regex
const t0 = performance.now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < rounds; i++) masked += mask(sample).length;
const seconds = (performance.now() - t0) / 1000;
// CPU time as well: on a shared machine the wall clock mostly measures the neighbours.
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const mb = (Buffer.byteLength(sample) * rounds) / 2 ** 20;
console.log(`masker: ${secrets.length} secrets, built in ${built.toFixed(1)} ms`);
console.log(
  `masked ${mb.toFixed(1)} MB of output in ${seconds.toFixed(2)} s (${cpuSeconds.toFixed(2)} s CPU): ` +
    `${(mb / seconds).toFixed(1)} MB/s wall, ${(mb / cpuSeconds).toFixed(1)} MB/s CPU (${masked} chars out)`,
);

// Wrapped base64 (a file dumped with `base64`, 76 columns) as printed raw, in stdout_lines and
// through to_json: every line end is where a block of wrapped base64 is sought.
const blob = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 251)).toString("base64");
const wrappedLines = blob.match(/.{1,76}/g) ?? [];
const wrappedSample = [
  wrappedLines.join("\n"),
  wrappedLines.map((line) => `        "${line}",`).join("\n"),
  `    "msg": ${JSON.stringify(JSON.stringify({ stdout: wrappedLines.join("\n"), stdout_lines: wrappedLines }))}`,
].join("\n");
mask(wrappedSample);
const w0 = performance.now();
for (let i = 0; i < 4; i++) mask(wrappedSample);
const wrappedSeconds = (performance.now() - w0) / 1000;
const wrappedMb = (4 * wrappedSample.length) / 2 ** 20;
console.log(
  `masked ${wrappedMb.toFixed(1)} MB of wrapped base64 in ${wrappedSeconds.toFixed(2)} s: ${(wrappedMb / wrappedSeconds).toFixed(1)} MB/s`,
);

// Worst cases a form user can choose: both the secret and the output. Each backslash of a
// secret matches 1, 2, 4 or 8 backslashes (escape levels); matched one by one, a run of them
// could split a run in the output in exponentially many ways.
const worst = (label: string, secret: string, text: string) => {
  const m = createMasker([secret]);
  // Warm-up: compile the patterns (pending's are compiled when first needed).
  m("x");
  m.pending?.("x\n");
  m.pending?.("x");
  const t = performance.now();
  m(text);
  m.pending?.(text);
  console.log(`worst case: ${label}: ${(performance.now() - t).toFixed(1)} ms`);
};
worst(
  '"ab" + 16 backslashes + "cd" against one line "ab" + 32 backslashes + "c"',
  `ab${"\\".repeat(16)}cd`,
  `"note": "ab${"\\".repeat(32)}c"\n`,
);
worst("8 backslashes + x against 16,000 backslashes", `${"\\".repeat(8)}x`, "\\".repeat(16_000));
worst('"ab" + 10 backslashes + "cd" against 2.1 KB of "ab" + 40 backslashes', `ab${"\\".repeat(10)}cd`, `ab${"\\".repeat(40)}`.repeat(50));
// Ambiguous escapes (attack scripts mask-backtrack.ts, mask-backtrack-quote.ts): a run of
// backslashes that the secret's backslashes and a quote's escape could share, and '' as one
// doubled quote or two. Exponential before the units were made unambiguous (N=26: 2.4 s a line,
// N=28 single quotes: 16.8 s); sizes here kept where the old code still ends.
for (const n of [20, 22]) {
  worst(`\\" x ${n} + "Z" against one line "x" + \\\\\\" x ${n - 1} + "y"`, `${'\\"'.repeat(n)}Z`, `x${'\\\\\\"'.repeat(n - 1)}y\n`);
  worst(`' x ${n} + "q" against one line '' x ${n - 1} + "z"`, `${"'".repeat(n)}q`, `${"''".repeat(n - 1)}z\n`);
}
