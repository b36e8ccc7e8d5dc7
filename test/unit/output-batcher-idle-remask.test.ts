/**
 * A partial line that waits (the playbook printed it and sleeps) is not masked again at every
 * flush while it has not changed (OutputBatcher.heldOnce): held() masked up to 64 KiB of it at
 * every 0.5 s interval, on the RTE's event loop, while the line ended in base64-like characters
 * (attack 4 on issue 34: about 1 s of every 0.5 s with a costly secret).
 */
import { describe, expect, it } from "vitest";
import { createMasker, type Masker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";

function idleFlushes(
  mask: Masker,
  flushes: number,
  emit: (items: UnnumberedItem[]) => void = () => {},
  more?: (b: OutputBatcher) => void,
): void {
  let now = 1_700_000_000_000;
  const realNow = Date.now;
  Date.now = () => now;
  try {
    const b = new OutputBatcher({ intervalMs: 500, maxBatchBytes: 65_536, maxBuffer: 50e6, mask, emit });
    b.write("stdout", `${" ".repeat(60_000)}abc`);
    for (let k = 0; k < flushes; k++) {
      now += 500;
      b.flush(false);
    }
    more?.(b);
  } finally {
    Date.now = realNow;
  }
}

function counting(inner: Masker): { mask: Masker; masked: () => number } {
  let masked = 0;
  const mask: Masker = Object.assign(
    (text: string) => {
      if (text.length > 10_000) masked += text.length;
      return inner(text);
    },
    { pending: inner.pending },
  );
  return { mask, masked: () => masked };
}

describe("a waiting partial line", () => {
  it("does not mask the same waiting 60 KB partial line at every one of 20 idle intervals", () => {
    const { mask, masked } = counting(createMasker(["Zq8vT3nW6pK1rY5m"]));
    idleFlushes(mask, 20);
    // The line once, maybe twice: not 20 times.
    expect(masked()).toBeLessThanOrEqual(2 * 60_003);
  });

  it("spends under 1 s in 10 idle intervals of a waiting 60 KB partial line, with a secret that starts with 100 spaces", () => {
    const mask = createMasker([`${" ".repeat(100)}x1yz`]);
    const started = performance.now();
    idleFlushes(mask, 10);
    expect(performance.now() - started).toBeLessThan(1000);
  }, 120_000);

  it("is looked at again once it changes, and a secret completed by the next write is masked", () => {
    const secret = "Zq8vT3nW6pK1rY5m";
    const emitted: UnnumberedItem[][] = [];
    idleFlushes(
      createMasker([secret]),
      5,
      (items) => emitted.push(items),
      (b) => {
        b.write("stdout", ` ${secret.slice(0, 8)}`);
        b.flush(false);
        b.write("stdout", `${secret.slice(8)} done\n`);
        b.stop();
      },
    );
    const out = emitted
      .flat()
      .map((i) => (i.kind === "output" ? i.text : ""))
      .join("");
    expect(out).not.toContain(secret.slice(0, 8));
    expect(out).toContain("********");
    expect(out.endsWith(" done\n")).toBe(true);
  });
});
