/**
 * Third attack on the second round's fix "no catastrophic backtracking" (backslash, quote and
 * line-feed runs matched as one unit). Spaces and line feeds mixed are still split in
 * exponentially many ways: a space matches " " or a line break and indentation ("\n *"), a line
 * feed matches a break followed by indentation, so a run of "\n " in the output can be divided
 * between the secret's units in many ways before the match fails. Measured
 * (test/attack/mask-redos.ts): a secret "\n " x N + "Z" against "\n  \n " x N took 2.3 s at
 * N=12 and 207 s at N=16; a secret " " x N + "Z" against "\n " x N + " " x N took 0.5 s at
 * N=24 and 187 s at N=48. The masker runs on the RTE's event loop: a form user who picks the
 * password and what the playbook prints stalls the runner (its heartbeat, every other job).
 */
import { describe, expect, it } from "vitest";
import { createMasker } from "../../server/security/mask";

function timed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

describe("attack3: no catastrophic backtracking on spaces and line feeds", () => {
  it('masks a line against a secret of "\\n " runs (N=12) in under 0.5 s', () => {
    const mask = createMasker(["\n ".repeat(12) + "Z"]);
    const ms = timed(() => mask("\n  \n ".repeat(12)));
    expect(ms).toBeLessThan(500);
  }, 600_000);

  it("masks a line against a secret of a run of spaces (N=28) in under 0.5 s", () => {
    const mask = createMasker([" ".repeat(28) + "Z"]);
    const ms = timed(() => mask("\n ".repeat(28) + " ".repeat(28)));
    expect(ms).toBeLessThan(500);
  }, 600_000);
});
