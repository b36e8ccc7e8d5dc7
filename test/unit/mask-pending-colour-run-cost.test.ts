/**
 * Masker.pending stays linear in a run of colour escapes held as a partial line (attack 6 on
 * issue 34, fixed by collapseColourRuns in server/security/mask.ts). It was quadratic in a run of colour escapes followed by
 * something that is no break, when the tail holds a line break (or `\r`, `,`, `\n` escaped):
 * withBreaksPending runs BASE64_BREAK_CUT_END (`(?:…(?:ESC[…m)*…)$`, not anchored at its start)
 * over the tail, and from every escape of the run the colours are walked to its end before the
 * `$` fails. Its window is 64 times the longest form of a secret: with a 4,096-character
 * password, 262,000 characters (`npx tsx test/attack/attack6-pending-cost.ts 4096 nl-esc-x`:
 * 16 k characters 0.6 s, 33 k 1.8 s, 66 k 3.9 s, 131 k 14.7 s, 262 k 59.6 s, one call each).
 * Through the output batcher (a partial line is held up to 64 Ki characters) one call on the
 * RTE's event loop took 3.7 s (`attack6-batcher-pending.ts`), and docs/security.md says
 * masking is linear in the text, so a playbook cannot stall the event loop past a heartbeat
 * timeout of 4 s. The check here is the growth (twice the run, about twice the time) and a
 * loose bound.
 */
import { expect, it } from "vitest";
import { createMasker } from "../../server/security/mask";

function timed(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

const key = "k".repeat(16) + Buffer.from(Array.from({ length: 3060 }, (_, i) => (i * 7919) % 256)).toString("base64");
const mask = createMasker([key]);

// What comes before the run: a line end (the attack), a `\r`, the end of a string of a list and
// a comma: each made one of the patterns walk the run from every escape of it.
it.each([
  ["a line break", "PLAY [x]\n"],
  ["a carriage return", "PLAY [x]\r"],
  ["a list's quote and comma", 'x\n["a",'],
  ["a comma", "x\n,"],
])(
  "pending() of a partial line of colour resets after %s is linear, with a 4,096-character secret",
  (_, before) => {
    const tail = (resets: number) => before + "\x1b[0m".repeat(resets) + "x";
    mask.pending?.(tail(100));
    const small = timed(() => mask.pending?.(tail(8185)));
    const big = timed(() => mask.pending?.(tail(16370)));
    expect(
      { big: big < 500, growth: big < 8 * Math.max(small, 5) },
      `8,185 resets ${small.toFixed(0)} ms, 16,370 ${big.toFixed(0)} ms`,
    ).toEqual({
      big: true,
      growth: true,
    });
  },
  120_000,
);
