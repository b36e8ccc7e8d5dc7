/**
 * Fifth attack on issue 34, item 1: wrapped base64 in "ansible-playbook's colours around a whole
 * line" (docs/security.md, claimed), each line `ESC[0;32m` + 64/76 base64 characters + `ESC[0m`
 * as Display's stringc colours a multi-line message line by line, is not masked when nothing
 * stands between the colour and the first line's base64 and the secret spans that first break:
 * even printed in one write (no pause, no event). With a label (`token: `) or a list's quote
 * after the colour it is masked (the cases the unit tests cover). Found by
 * test/attack/attack5-hold-fuzz.ts (164 of 3000 schedules, all of this shape, leak the same
 * when the text is masked whole; the new hold logic itself leaked in none).
 * Fixed: the walk back from a line end over the first line's base64 stopped at the colour's m
 * (a base64 character); the batcher's hold too, and a colour cut short by a pause waits for
 * its end (a stale `ESC[0;` sent alone left `32m` glued to the base64 that followed).
 */
import { afterEach, expect, it, vi } from "vitest";
import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";

const SECRET = "Xk9#pQ2!vB7$wL4mRt8Zq";

/** 8-character windows of the secret's base64 at every alignment. */
function windows(secret: string): string[] {
  const w: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const bytes = Buffer.from(secret).subarray(skip);
    const middle = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
    for (let at = 0; at + 8 <= middle.length; at += 2) w.push(middle.slice(at, at + 8));
  }
  return w;
}

it("masks a secret's wrapped base64 printed in ansible-playbook's colours around each whole line", () => {
  const mask = createMasker([SECRET]);
  const leaks: string[] = [];
  for (const width of [64, 76])
    for (let prefix = 0; prefix < 80; prefix++) {
      const b64 = Buffer.from("P".repeat(prefix) + SECRET + "S".repeat(100)).toString("base64");
      const lines: string[] = [];
      for (let at = 0; at < b64.length; at += width) lines.push(b64.slice(at, at + width));
      const text = `ok: [localhost]\n\x1b[0;32m${lines.join("\x1b[0m\n\x1b[0;32m")}\x1b[0m\ndone\n`;
      // eslint-disable-next-line no-control-regex -- colours
      const out = mask(text).replace(/\x1b\[[0-9;]*m|\n/g, "");
      const found = windows(SECRET).filter((w) => out.includes(w));
      if (found.length) leaks.push(`${width} columns, prefix ${prefix}: ${found.length} windows`);
    }
  expect(leaks).toEqual([]);
});

afterEach(() => {
  vi.useRealTimers();
});

function coloured(width: number, prefix: number): string {
  const b64 = Buffer.from("P".repeat(prefix) + SECRET + "S".repeat(60)).toString("base64");
  const lines: string[] = [];
  for (let at = 0; at < b64.length; at += width) lines.push(b64.slice(at, at + width));
  return `ok: [localhost]\n\x1b[0;32m${lines.join("\x1b[0m\n\x1b[0;32m")}\x1b[0m\ndone\n`;
}

it("masks it through the batcher when the playbook pauses anywhere in its first two lines (the colours too)", () => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
  vi.setSystemTime(1_700_000_000_000);
  const mask = createMasker([SECRET]);
  const leaks: string[] = [];
  for (const width of [64, 76])
    for (let prefix = 0; prefix < 60; prefix += 7) {
      const text = coloured(width, prefix);
      const from = text.indexOf("\x1b");
      for (let cut = from; cut < from + 2 * width + 20; cut++) {
        const out: string[] = [];
        const b = new OutputBatcher({
          intervalMs: 500,
          maxBatchBytes: 65536,
          maxBuffer: 50e6,
          mask,
          emit: (items) => items.forEach((i) => i.kind === "output" && out.push(i.text)),
        });
        b.write("stdout", text.slice(0, cut));
        for (let k = 0; k < 3; k++) {
          vi.setSystemTime(Date.now() + 600);
          b.flush(false);
        }
        b.write("stdout", text.slice(cut));
        b.stop();
        // eslint-disable-next-line no-control-regex -- colours
        const sent = out.join("").replace(/\x1b\[[0-9;]*m|\n/g, "");
        const found = windows(SECRET).filter((w) => sent.includes(w));
        if (found.length) leaks.push(`${width} columns, prefix ${prefix}, cut ${cut - from}: ${found.length} windows`);
      }
    }
  expect(leaks).toEqual([]);
}, 60_000);
