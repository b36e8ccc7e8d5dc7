/**
 * Third attack on issue 34 (and issue 35 item 2): the masker's cost with many secrets. Measured
 * (test/attack/mask-many.ts, mask-pending-cost.ts, 2 shared cores): masking 1.6 MB of ordinary
 * output took 82-95 ms with 1 to 30 random 16-35 character secrets, then 1,553 ms with 50 and
 * 5,206 ms with 100 (a cliff, not a line); through the OutputBatcher, with a third of the lines
 * 76-column base64, 30 secrets took 5.0 s for 1.6 MB (4.7 s of it in pending()), 50 took 30.6 s
 * (0.05 MB/s of CPU on the RTE's event loop).
 */
import { describe, expect, it } from "vitest";
import { createMasker, type Masker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
function generator(seed: number) {
  let s = seed;
  return (n: number, alphabet = ALNUM) => {
    let out = "";
    for (let i = 0; i < n; i++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      out += alphabet[s % alphabet.length];
    }
    return out;
  };
}

function secretsOf(count: number): string[] {
  const r = generator(11);
  return Array.from({ length: count }, (_, i) => r(16 + (i % 20)));
}

function timed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

describe("masking cost with many secrets", () => {
  it("masking cost grows about linearly with the number of secrets: 100 secrets cost at most 8 times 25", () => {
    const r = generator(5);
    const text = Array.from({ length: 8000 }, () => `  ${r(80, `${ALNUM} .,:'"`)}`).join("\n");
    const few = createMasker(secretsOf(25));
    const many = createMasker(secretsOf(100));
    few(text.slice(0, 1000));
    many(text.slice(0, 1000));
    const tFew = Math.min(
      timed(() => few(text)),
      timed(() => few(text)),
    );
    const tMany = Math.min(
      timed(() => many(text)),
      timed(() => many(text)),
    );
    expect(
      tMany,
      `25 secrets: ${tFew.toFixed(0)} ms, 100 secrets: ${tMany.toFixed(0)} ms for ${(text.length / 1e6).toFixed(2)} MB`,
    ).toBeLessThan(8 * Math.max(tFew, 5));
  }, 120_000);

  it("a batcher with 50 secrets masks 0.5 MB of output holding 76-column base64 lines in under 2.5 s of CPU", () => {
    const r = generator(9);
    const text = `${Array.from({ length: 6000 }, (_, i) => (i % 3 ? `  ${r(80, `${ALNUM} .,:'"`)}` : r(76))).join("\n")}\n`;
    const mask: Masker = createMasker(secretsOf(50));
    const b = new OutputBatcher({ intervalMs: 1e9, maxBatchBytes: 64 * 1024, maxBuffer: 1e9, mask, emit: () => {} });
    const ms = timed(() => {
      for (let i = 0; i < text.length; i += 65536) b.write("stdout", text.slice(i, i + 65536));
      b.stop();
    });
    expect(ms, `${(text.length / 1e6).toFixed(2)} MB in ${ms.toFixed(0)} ms`).toBeLessThan(2500);
  }, 120_000);
});
