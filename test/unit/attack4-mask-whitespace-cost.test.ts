/**
 * Fourth attack on issue 34: the atomic whitespace unit (whitespaceRun) still costs up to
 * count x 130 pieces at every start. A secret that starts with a run of spaces (a form's
 * password field: the user picks it, and picks the output) has no literal to scan for, so
 * every position of a run of spaces in the output tries it: 64 KiB of spaces took 2.4 s to
 * mask with one such secret, 18 s with ten, on the RTE's event loop (every job of the runner
 * waits). test/attack/attack4-ws-cost.ts, attack4-ws-many.ts.
 */
import { describe, expect, it } from "vitest";
import { createMasker } from "../../server/security/mask";

describe("attack 4: cost of the whitespace unit", () => {
  it("masks 64 KiB of spaces in under 300 ms with a secret that starts with 100 spaces", () => {
    const secret = `${" ".repeat(100)}x1yz`;
    const mask = createMasker([secret]);
    const text = `${" ".repeat(65_536)}\n`;
    const started = performance.now();
    const out = mask(text);
    const elapsed = performance.now() - started;
    expect(out).toBe(text);
    expect(elapsed).toBeLessThan(300);
  }, 60_000);
});
