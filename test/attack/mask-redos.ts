/**
 * Attack 3: catastrophic backtracking probes of the masker (createMasker and pending()).
 * Each case: a secret of a repeated hostile unit plus "Z", against output of the unit's
 * printed forms that never ends in "Z". Prints ms per call at N and 2N.
 * Run: npx tsx test/attack/mask-redos.ts
 */
import { createMasker } from "../../server/security/mask";

type Case = { name: string; secret: (n: number) => string; text: (n: number) => string };
const cases: Case[] = [
  { name: 'prior: \\" x N vs \\\\\\" x N-1', secret: (n) => '\\"'.repeat(n) + "Z", text: (n) => '\\\\\\"'.repeat(n - 1) },
  { name: "prior: ' x N + q", secret: (n) => "'".repeat(n) + "q", text: (n) => "'".repeat(2 * n) },
  { name: "prior: line feeds", secret: (n) => "\n".repeat(n) + "Z", text: (n) => "\n".repeat(2 * n) },
  { name: "spaces vs newline+spaces", secret: (n) => " ".repeat(n) + "Z", text: (n) => "\n ".repeat(n) + " ".repeat(n) },
  { name: "spaces vs escaped \\n + spaces", secret: (n) => " ".repeat(n) + "Z", text: (n) => "\\n ".repeat(2 * n) },
  { name: "space+quote alternating", secret: (n) => " '".repeat(n) + "Z", text: (n) => "\n ''".repeat(n) },
  { name: "backslash+space", secret: (n) => "\\ ".repeat(n) + "Z", text: (n) => "\\\\\n  ".repeat(n) },
  { name: "newline+space", secret: (n) => "\n ".repeat(n) + "Z", text: (n) => "\n  \n ".repeat(n) },
  { name: "tab runs (escaped \\t at depths)", secret: (n) => "\t".repeat(n) + "Z", text: (n) => "\\\\t\\t".repeat(n) },
  { name: "quote+backslash mix", secret: (n) => `'\\"`.repeat(n) + "Z", text: (n) => `''\\\\\\\\"`.repeat(n) },
  { name: "é runs (\\u00e9 / \\xc3\\xa9)", secret: (n) => "é".repeat(n) + "Z", text: (n) => "\\\\u00e9\\xc3\\xa9".repeat(n) },
  { name: "fold: space as \\\\n + indent + \\ space", secret: (n) => " ".repeat(n) + "Z", text: (n) => "\\\n  \\ ".repeat(n) },
];

for (const c of cases) {
  const row: string[] = [];
  for (const n of (process.argv[2] ?? "12,16,20").split(",").map(Number)) {
    const mask = createMasker([c.secret(n)]);
    const text = c.text(n);
    let t = performance.now();
    mask(text);
    const m = performance.now() - t;
    t = performance.now();
    mask.pending!(text);
    const p = performance.now() - t;
    row.push(`N=${n}: mask ${m.toFixed(1)} ms, pending ${p.toFixed(1)} ms`);
    if (m > 3000 || p > 3000) break;
  }
  console.log(`${c.name.padEnd(45)} ${row.join(" | ")}`);
}
