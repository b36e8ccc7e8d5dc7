/**
 * Fifth attack on issue 34: mask() of a long run of colour escapes (`ESC[0m` repeated) was
 * quadratic. Where a line may end (LINE_END in server/security/mask.ts) started with the colours
 * before a line break, `(?:ESC[...m)*\r?\n`: tried at every escape of a run with no line break
 * after it, each try took the rest of the run. One set_stats string of 400 KB of them took 104 s
 * of the runner's event loop in one maskEvent (100 KB 2.6 s, 200 KB 13.6 s), and with a 20 s
 * heartbeat timeout every job on that runner was abandoned
 * (test/integration/rte-heartbeat-colour-resets-stats.test.ts). The check here is the growth
 * (twice the text costs about twice the time), with a loose bound on the time as well.
 */
import { describe, expect, it } from "vitest";
import { createMasker, type Masker } from "../../server/security/mask";
import { maskEvent } from "../../server/rte/output-batcher";

function timed(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

/** The least of three runs: the machine is shared, a single run may be slowed by the others. */
function cost(run: () => void): number {
  return Math.min(timed(run), timed(run), timed(run));
}

const SHAPES: Record<string, (size: number) => string> = {
  "colour resets": (size) => "\x1b[0m".repeat(size / 4),
  "colours and commas": (size) => ",\x1b[0;32m\x1b[0m".repeat(size / 13),
  "colours with long parameters": (size) => `\x1b[${"1;".repeat(size / 2)}m`,
  "colour resets after 64 base64 characters": (size) => `${"QUJD".repeat(16)}${"\x1b[0m".repeat(size / 4)}`,
  "colour resets, then a line break": (size) => `${"\x1b[0m".repeat(size / 4)}\n`,
};

describe("masking a run of colour escapes", () => {
  const mask: Masker = createMasker(["stall-token-1a2b3c4d", "Xk9#pQ2!vB7$wL4mRt8Zq"]);
  const N = 200_000;

  for (const [name, shape] of Object.entries(SHAPES)) {
    it(`${name}: twice the text costs about twice the time (mask and pending)`, () => {
      const [small, large] = [shape(N), shape(2 * N)];
      mask(small.slice(0, 1000));
      const [tSmall, tLarge] = [cost(() => mask(small)), cost(() => mask(large))];
      // Linear is 2; quadratic was 4 and more. A floor of 20 ms keeps the noise of tiny times out.
      expect({ ratio: tLarge / Math.max(tSmall, 20) < 3 ? "< 3" : tLarge / tSmall, tLarge: tLarge < 2000 ? "< 2 s" : tLarge }).toEqual({
        ratio: "< 3",
        tLarge: "< 2 s",
      });
      const [pSmall, pLarge] = [cost(() => mask.pending!(small)), cost(() => mask.pending!(large))];
      expect(pLarge / Math.max(pSmall, 20)).toBeLessThan(3);
      expect(mask(large)).toBe(large);
    }, 60_000);
  }

  it("one stats event holding 460 KB of colour resets (about the plugin's 1 MiB cap of set_stats) is masked in under 2 s", () => {
    const event = { v: 1, type: "stats", hosts: [], custom: { _run: { x: "\x1b[0m".repeat(115_000), token: "stall-token-1a2b3c4d" } } };
    let masked: unknown;
    const ms = timed(() => (masked = maskEvent(event, mask)));
    expect(ms).toBeLessThan(2000);
    expect(JSON.stringify(masked)).not.toContain("stall-token-1a2b3c4d");
  }, 60_000);
});
