/**
 * Third attack on issue 34 items 1 and 3: the batcher's hold-back and maxBatchBytes. No pause
 * at all: ansible-playbook prints a large result (64 KB and more) in several pipe reads, and a
 * read that fills a batch (maxBatchBytes) flushes at once. Its complete lines go out, and only
 * trailing lines that are 64/76 columns of base64 alone are held: a first line of wrapped
 * base64 with a label before it ("token: ", `"stdout": "` with raw line breaks, a YAML key) ends
 * the batch, and the secret's base64 is cut in two pieces that are each masked alone.
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

describe("a full batch cuts wrapped base64 after a label", () => {
  it("masks 76-column base64 after a label when a pipe read that fills the batch ends after its first line (no pause)", () => {
    const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
    const b64 = Buffer.from("x".repeat(45) + secret + "/" + "z".repeat(80)).toString("base64");
    const lines = b64.match(/.{1,76}/g)!;
    const filler = `${"ok: [web] => some ordinary line of output\n".repeat(1600)}`; // ~67 KB
    // Control: the same text in one write is masked.
    const control: string[] = [];
    const whole = new OutputBatcher({
      intervalMs: 500,
      maxBatchBytes: 1e9,
      maxBuffer: 1e9,
      mask: createMasker([secret]),
      emit: (items) => items.forEach((i) => i.kind === "output" && control.push(i.text)),
    });
    whole.write("stdout", `${filler}token: ${lines.join("\n")}\n`);
    whole.stop();
    expect(control.join("")).not.toContain("bW9uaXRvcmluZy10");
    const b = new OutputBatcher({
      intervalMs: 500,
      maxBatchBytes: 64 * 1024,
      maxBuffer: 1e8,
      mask: createMasker([secret]),
      emit: (items) => emitted.push(items),
    });
    b.start();
    b.write("stdout", `${filler}token: ${lines[0]}\n`);
    b.write("stdout", `${lines.slice(1).join("\n")}\n`);
    b.stop();
    const out = emitted
      .flat()
      .map((item) => (item.kind === "output" ? item.text : ""))
      .join("");
    const tail = out.slice(filler.length);
    expect(tail, tail).not.toContain("bW9uaXRvcmluZy10");
  });
});
