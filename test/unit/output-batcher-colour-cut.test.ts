/**
 * Fourth attack on issue 34, items 1 and 3: coloured wrapped base64 (ansible-playbook colours
 * each line: ESC[0;32m ... ESC[0m), labelled on its first line, cut by a pause (or the end of a
 * write) inside the colour escape at the end of the first line: the rest of the block goes out
 * with the secret's base64 unmasked ("aXRvcmluZy10b2tlbi04ZDdm...": "itoring-token-8d7f...").
 * test/attack/attack4-pause-variants.ts, attack4-colour-cut.ts.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";

const INTERVAL = 500;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(1_700_000_000_000);
});
afterEach(() => {
  vi.useRealTimers();
});

function printed(secret: string, writes: string[]): string {
  const out: string[] = [];
  const b = new OutputBatcher({
    intervalMs: INTERVAL,
    maxBatchBytes: 64 * 1024,
    maxBuffer: 50 * 1024 * 1024,
    mask: createMasker([secret]),
    emit: (items) => items.forEach((item) => item.kind === "output" && out.push(item.text)),
  });
  b.start();
  for (const [i, w] of writes.entries()) {
    if (i > 0) vi.advanceTimersByTime(4 * INTERVAL);
    b.write("stdout", w);
  }
  vi.advanceTimersByTime(INTERVAL);
  b.stop();
  return out.join("");
}

it("masks coloured 64-column wrapped base64 after a label, cut by a pause inside the colour escape that ends its first line", () => {
  const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
  const b64 = Buffer.from("x".repeat(45) + secret + "/" + "z".repeat(80)).toString("base64");
  const lines = b64.match(/.{1,64}/g)!;
  const text = `\x1b[0;32mtoken: ${lines.join("\x1b[0m\n\x1b[0;32m")}\x1b[0m\n`;
  const secretBase64 = "aXRvcmluZy10b2tlbi04ZDdm"; // base64 of "itoring-token-8d7f", on the second line
  expect(printed(secret, [text])).not.toContain(secretBase64);
  const bad = [79, 84].filter((at) => printed(secret, [text.slice(0, at), text.slice(at)]).includes(secretBase64));
  expect(bad).toEqual([]);
});
