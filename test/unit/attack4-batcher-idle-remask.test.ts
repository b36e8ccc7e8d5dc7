/**
 * Fourth attack on issue 34: while a partial line that ends in a run of base64 characters
 * waits (the playbook printed it and sleeps), OutputBatcher.held() masks that line again (up to
 * 64 KiB) at every interval, on the RTE's event loop, for as long as the playbook is silent.
 * With a secret that is costly to look for (one starting with a run of spaces, see
 * attack4-mask-whitespace-cost.test.ts) one 60 KB write and a `sleep` keep the event loop busy
 * about 1 s of every 0.5 s interval: every job of the runner starves. test/attack/attack4-held-remask.ts.
 */
import { describe, expect, it } from "vitest";
import { createMasker, type Masker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";

function idleFlushes(mask: Masker, flushes: number): void {
  let now = 1_700_000_000_000;
  const realNow = Date.now;
  Date.now = () => now;
  try {
    const b = new OutputBatcher({ intervalMs: 500, maxBatchBytes: 65_536, maxBuffer: 50e6, mask, emit: () => {} });
    b.write("stdout", `${" ".repeat(60_000)}abc`);
    for (let k = 0; k < flushes; k++) {
      now += 500;
      b.flush(false);
    }
  } finally {
    Date.now = realNow;
  }
}

describe("attack 4: a waiting partial line is masked again at every interval", () => {
  it("does not mask the same waiting 60 KB partial line at every one of 20 idle intervals", () => {
    const inner = createMasker(["Zq8vT3nW6pK1rY5m"]);
    let masked = 0;
    const counting: Masker = Object.assign((text: string) => {
      if (text.length > 10_000) masked += text.length;
      return inner(text);
    }, { pending: inner.pending });
    idleFlushes(counting, 20);
    // The line once, maybe twice: not 20 times.
    expect(masked).toBeLessThanOrEqual(2 * 60_003);
  });

  it("spends under 1 s in 10 idle intervals of a waiting 60 KB partial line, with a secret that starts with 100 spaces", () => {
    const mask = createMasker([`${" ".repeat(100)}x1yz`]);
    const started = performance.now();
    idleFlushes(mask, 10);
    expect(performance.now() - started).toBeLessThan(1000);
  }, 120_000);
});
