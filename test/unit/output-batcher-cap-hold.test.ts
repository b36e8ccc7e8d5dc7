/**
 * Third attack on issue 34 items 1 and 3: the output cap (PROCESS_MAX_BUFFER, the batcher's
 * maxBuffer) keeps a stream "to the last whole line that fits" and drops the rest. A secret
 * whose form spans lines (base64 wrapped at 76 columns; a multi-line secret) is then cut at a
 * line end: the lines before the cap are stored, those after are dropped, and the masker, which
 * only masks a form whole, never sees the secret whole. No pause is needed: one write.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";

let emitted: UnnumberedItem[][];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(1_700_000_000_000);
  emitted = [];
});
afterEach(() => {
  vi.useRealTimers();
});

function stored(secret: string, filler: string, text: string, maxBuffer: number): string {
  const b = new OutputBatcher({
    intervalMs: 500,
    maxBatchBytes: 64 * 1024,
    maxBuffer,
    mask: createMasker([secret]),
    emit: (items) => emitted.push(items),
  });
  b.start();
  b.write("stdout", filler);
  vi.advanceTimersByTime(500);
  b.write("stdout", text);
  vi.advanceTimersByTime(500);
  b.stop();
  return emitted
    .flat()
    .map((item) => (item.kind === "output" ? item.text : ""))
    .join("");
}

describe("a secret's form cut by the output cap", () => {
  it("masks base64 wrapped at 76 columns when the output cap falls after its first line", () => {
    const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
    const b64 = Buffer.from("x".repeat(45) + secret + "/" + "z".repeat(80)).toString("base64");
    const lines = b64.match(/.{1,76}/g)!;
    const filler = "TASK [print the token] ****\n";
    const text = `${lines.join("\n")}\n`;
    // The cap lands inside the second line: the first line is the last whole line that fits.
    const out = stored(secret, filler, text, filler.length + 76 + 1 + 30);
    expect(out).toContain(lines[0]!.slice(0, 40)); // the first line was stored
    const firstHalf = Buffer.from("x".repeat(45) + secret)
      .toString("base64")
      .slice(60, 76); // secret bits on line 1
    expect(out, `stored: ${JSON.stringify(out)}`).not.toContain(firstHalf);
  });

  it("masks a multi-line secret when the output cap falls after its first line", () => {
    const secret = "line-one-of-the-key-Zq8w3Kp9\nline-two-of-the-key-Hf5t2Lm7";
    const filler = "TASK [print the key] ****\n";
    const text = `${secret}\n`;
    const out = stored(secret, filler, text, filler.length + 29 + 10);
    expect(out, `stored: ${JSON.stringify(out)}`).not.toContain("line-one-of-the-key-Zq8w3Kp9");
  });
});
