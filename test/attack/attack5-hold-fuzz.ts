/**
 * Attack 5: random schedules against the batcher's new hold (held lines of wrapped base64 that
 * an event, a runner line or stderr comes after). A secret's base64 wrapped at 64 or 76 columns
 * (raw, labelled, JSON-quoted, coloured, YAML list) is written to stdout in random pieces; between
 * pieces come events, runner lines, stderr lines (or partial stderr), and flushes at random
 * clock steps (0-1.2 s). Checks: no 8-character window of the secret's base64 in the stdout that
 * was sent; events and runner lines keep their order; all stderr arrives, in order.
 * With `cap`, each run also has a random PROCESS_MAX_BUFFER (maxBuffer) inside the text: what was
 * sent must hold no window either (the cap drops what may be the start of a secret).
 * Usage: npx tsx test/attack/attack5-hold-fuzz.ts [runs] [seed] [cap]
 */
import { OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";

/** Line breaks, ansible's colours and the separators of wrapped base64, left out before looking for a window. */
// eslint-disable-next-line no-control-regex -- ansible colours
const NOISE = /\n|\x1b\[[0-9;]*m|[ ",-]/g;

const runs = Number(process.argv[2] ?? 2000);
const withCap = process.argv[4] === "cap";
let seed = Number(process.argv[3] ?? 1);
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;
const SECRET = "Xk9#pQ2!vB7$wL4mRt8Zq";
const mask = createMasker([SECRET]);
function windows(secret: string): string[] {
  const w: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const bytes = Buffer.from(secret).subarray(skip);
    const middle = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
    for (let at = 0; at + 8 <= middle.length; at += 2) w.push(middle.slice(at, at + 8));
  }
  return w;
}
const WINDOWS = windows(SECRET);
let now = 1_700_000_000_000;
Date.now = () => now;
let leaks = 0;
const controlLeaks: Record<string, number> = {};
let orderBreaks = 0;
const examples: string[] = [];
for (let r = 0; r < runs; r++) {
  const width = pick([64, 76]);
  const prefix = "P".repeat(Math.floor(rnd() * 60));
  const b64 = Buffer.from(prefix + SECRET + "S".repeat(Math.floor(rnd() * 90))).toString("base64");
  const lines: string[] = [];
  for (let at = 0; at < b64.length; at += width) lines.push(b64.slice(at, at + width));
  const shape = pick(["raw", "label", "json", "colour", "yaml"]);
  let text: string;
  if (shape === "raw") text = lines.map((l) => `${l}\n`).join("");
  else if (shape === "label") text = `token: ${lines.map((l) => `${l}\n`).join("")}`;
  else if (shape === "json") text = `    "stdout_lines": [\n${lines.map((l) => `        "${l}",\n`).join("")}    ]\n`;
  else if (shape === "colour") text = lines.map((l) => `\x1b[0;32m${l}\x1b[0m\n`).join("");
  else text = lines.map((l) => `  - ${l}\n`).join("");
  text = `ok: [localhost]\n${text}done\n`;
  const emitted: UnnumberedItem[][] = [];
  const maxBuffer = withCap ? 16 + Math.floor(rnd() * text.length) : 50e6;
  const batcher = new OutputBatcher({ intervalMs: 500, maxBatchBytes: 65536, maxBuffer, mask, emit: (i) => emitted.push(i) });
  const steps: string[] = [];
  let at = 0;
  let n = 0;
  let errText = "";
  while (at < text.length) {
    const len = 1 + Math.floor(rnd() * (rnd() < 0.5 ? 8 : 100));
    batcher.write("stdout", text.slice(at, at + len));
    steps.push(`out(${JSON.stringify(text.slice(at, at + len))})`);
    at += len;
    const k = Math.floor(rnd() * 7);
    for (let j = 0; j < k; j++) {
      const what = rnd();
      if (what < 0.3) {
        batcher.writeEvents(`{"n":${n}}\n`);
        steps.push(`ev(${n})`);
        n++;
      } else if (what < 0.45) {
        batcher.log(`runner ${n}`);
        steps.push(`log(${n})`);
        n++;
      } else if (what < 0.6) {
        const e = rnd() < 0.5 ? `warn ${n}\n` : `w${n}`;
        errText += e;
        batcher.write("stderr", e);
        steps.push(`err(${JSON.stringify(e)})`);
        n++;
      } else {
        now += Math.floor(rnd() * 1200);
        batcher.flush(false);
        steps.push(`tick`);
      }
    }
  }
  now += 600;
  batcher.flush(false);
  batcher.stop();
  const items = emitted.flat();
  const out = items
    .filter((i) => i.kind === "output" && i.stream === "stdout")
    .map((i) => (i as { text: string }).text)
    .join("");
  const err = items
    .filter((i) => i.kind === "output" && i.stream === "stderr")
    .map((i) => (i as { text: string }).text)
    .join("");
  const seq: number[] = [];
  for (const i of items) {
    if (i.kind === "events") for (const e of i.events as { n: number }[]) seq.push(e.n);
    if (i.kind === "log") {
      const m = /runner (\d+)/.exec(i.text);
      if (m) seq.push(Number(m[1]));
    }
  }
  const leaked = WINDOWS.filter((w) => out.replace(NOISE, "").includes(w));
  const ordered = seq.every((v, i) => i === 0 || v > seq[i - 1]!) && (withCap || err === errText);
  const control = WINDOWS.filter((w) => mask(text).replace(NOISE, "").includes(w));
  if (control.length) {
    controlLeaks[shape] = (controlLeaks[shape] ?? 0) + 1;
    continue;
  }
  if (leaked.length) leaks++;
  if (!ordered) orderBreaks++;
  if ((leaked.length || !ordered) && examples.length < 3)
    examples.push(
      `run ${r} (${shape}, ${width}, prefix ${prefix.length}): ${leaked.length ? `leaked ${leaked.join(",")}` : ""} ${ordered ? "" : `order ${seq.join(",")} err ${JSON.stringify(err)} vs ${JSON.stringify(errText)}`}\n  ${steps.join(" ")}\n  OUT ${JSON.stringify(out)}`,
    );
}
console.log(
  `${runs} runs: ${leaks} with a leak (the text masked whole in one write had none), ${orderBreaks} out of order; leaking even in one write, by shape: ${JSON.stringify(controlLeaks)}`,
);
for (const e of examples) console.log(e);
