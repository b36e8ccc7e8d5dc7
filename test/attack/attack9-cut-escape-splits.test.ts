/**
 * Attack 9 on issue 34 (held, kept as a probe): the cut escapes of the end-of-text finding
 * (attack9-mask-cut-escape-at-end.test.ts) in the middle of the stream. `pw=` + a secret with
 * `ESC[`, `\x9b`, `ESC`, an OSC ended by BEL, or a JSON-escaped `\u001b[` before its last 1 to 3
 * characters, written whole and cut in two at every character (a pause between, with and without
 * a runner line), then more output: 1,332 cases, 0 shown whole (the pane line by line, the
 * plain-text download, a reader skipping escaped escapes). Run it by moving it to test/unit/
 * (the imports stay).
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { stripAnsi } from "../../server/protocol/ansi";
import { OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(1_700_000_000_000);
});
afterEach(() => vi.useRealTimers());

const SECRETS = ["Summer2024!", "hunter2-secret-1234"];

function printed(writes: string[], mask: ReturnType<typeof createMasker>, runnerLine: boolean): string {
  const out: string[] = [];
  const batcher = new OutputBatcher({
    intervalMs: 500,
    maxBatchBytes: 64 * 1024,
    maxBuffer: 50 * 1024 * 1024,
    mask,
    emit: (items) => items.forEach((item) => item.kind === "output" && out.push(item.text)),
  });
  batcher.start();
  for (const [i, write] of writes.entries()) {
    if (i > 0) {
      vi.advanceTimersByTime(2_000);
      if (runnerLine) batcher.log("runner line");
    }
    batcher.write("stdout", write);
  }
  vi.advanceTimersByTime(2_000);
  batcher.write("stdout", "\nmore output\n");
  vi.advanceTimersByTime(2_000);
  batcher.stop();
  return out.join("");
}

it("a cut escape before a secret's end in the middle of the stream is masked, cut anywhere", () => {
  let cases = 0;
  const shown: string[] = [];
  for (const secret of SECRETS) {
    const mask = createMasker([secret]);
    for (let k = 1; k <= 3; k++) {
      const head = secret.slice(0, -k);
      const tail = secret.slice(-k);
      for (const form of [
        `${head}\x1b[${tail}`,
        `${head}\x9b${tail}`,
        `${head}\x1b${tail}`,
        `${head}\x1b]0;\x07${tail}`,
        `${head}\\u001b[${tail}`,
      ]) {
        const text = `pw=${form}`;
        for (let at = 0; at <= text.length; at++) {
          for (const runnerLine of [false, true]) {
            cases++;
            const joined = printed(at === 0 ? [text] : [text.slice(0, at), text.slice(at)], mask, runnerLine);
            const lines = joined.split("\n").map(stripAnsi).join("\n");
            const read = stripAnsi(joined).replace(/\\u001b\[?/g, "");
            if (lines.includes(secret) || read.includes(secret)) shown.push(`${JSON.stringify(form)}@${at}${runnerLine ? "+log" : ""}`);
          }
        }
      }
    }
  }
  expect(cases).toBe(1332);
  expect(shown).toEqual([]);
});
