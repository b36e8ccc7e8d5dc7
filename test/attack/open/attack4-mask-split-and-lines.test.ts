/**
 * Fourth attack on issue 34, items 1 and 3: a secret's wrapped base64 whose two lines are
 * separated by an event, a runner log line or a line on the other stream (a warning on stderr)
 * is stored with its base64 unmasked; a multi-line secret whose lines are all shorter than
 * 8 characters, printed line by line with a prefix (--diff's "+"), is stored whole.
 */
import { describe, expect, it } from "vitest";
import { createMasker } from "../../../server/security/mask";
import { OutputBatcher } from "../../../server/rte/output-batcher";
import type { UnnumberedItem } from "../../../server/protocol/rte-messages";

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

function run(steps: ((b: OutputBatcher) => void)[]): string {
  const emitted: UnnumberedItem[][] = [];
  const b = new OutputBatcher({
    intervalMs: 500,
    maxBatchBytes: 65536,
    maxBuffer: 50e6,
    mask: createMasker([SECRET]),
    emit: (i) => emitted.push(i),
  });
  for (const step of steps) step(b);
  b.stop();
  return emitted
    .flat()
    .map((i) => (i.kind === "output" || i.kind === "log" ? i.text : i.kind === "events" ? JSON.stringify(i.events) : ""))
    .join("");
}

/** `base64` output (64 columns, openssl's) of 30 bytes of a prefix, the secret and a suffix: the secret spans lines 1 and 2. */
const b64 = Buffer.from("P".repeat(30) + SECRET + "S".repeat(30)).toString("base64");
const LINES = [b64.slice(0, 64), b64.slice(64)];
const first = `${LINES[0]}\n`;
const rest = `${LINES[1]}\n`;

describe("attack 4: wrapped base64 split by something else, multi-line secrets of short lines", () => {
  it("masks the secret's base64 printed in one write (control)", () => {
    const out = run([(b) => b.write("stdout", first + rest)]);
    expect(windows(SECRET).filter((w) => out.includes(w))).toEqual([]);
  });

  it("masks wrapped base64 whose two lines are split by a callback event", () => {
    const out = run([(b) => b.write("stdout", first), (b) => b.writeEvents('{"event":"runner_on_ok"}\n'), (b) => b.write("stdout", rest)]);
    expect(windows(SECRET).filter((w) => out.includes(w))).toEqual([]);
  });

  it("masks wrapped base64 whose two lines are split by a runner log line", () => {
    const out = run([(b) => b.write("stdout", first), (b) => b.log("a runner line"), (b) => b.write("stdout", rest)]);
    expect(windows(SECRET).filter((w) => out.includes(w))).toEqual([]);
  });

  it("masks wrapped base64 whose two lines are split by a warning on stderr", () => {
    const out = run([(b) => b.write("stdout", first), (b) => b.write("stderr", "[WARNING]: something\n"), (b) => b.write("stdout", rest)]);
    expect(windows(SECRET).filter((w) => out.includes(w))).toEqual([]);
  });
});
