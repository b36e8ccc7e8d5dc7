/**
 * Fourth attack on issue 34, items 1 and 3: a secret's wrapped base64 whose two lines are
 * separated by an event, a runner log line or a line on the other stream (a warning on stderr)
 * was stored with its base64 unmasked: the batcher queued the first line at that item, without
 * its hold-back, and masked it alone. The batcher now keeps such lines held in its queue, with
 * the items after them waiting behind them in order (bounded), and masks a stream's pieces that
 * meet at a line end as one text (test/attack/attack4-split.ts: every prefix of 30 to 59
 * bytes, 64 and 76 columns, each line split).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMasker } from "../../server/security/mask";
import { OutputBatcher, maskOutputPieces, type Entry } from "../../server/rte/output-batcher";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";

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

describe("attack 4: wrapped base64 whose lines are split by an event, a runner line or stderr", () => {
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

describe("held lines and the items behind them, across flushes", () => {
  const INTERVAL = 500;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(1_700_000_000_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Runs the steps with a started batcher (a pause of `pause` intervals before each step after the first). */
  function timed(
    steps: ((b: OutputBatcher) => void)[],
    pause: number,
    options: { secret?: string; maxBuffer?: number } = {},
  ): UnnumberedItem[] {
    const emitted: UnnumberedItem[][] = [];
    const b = new OutputBatcher({
      intervalMs: INTERVAL,
      maxBatchBytes: 65536,
      maxBuffer: options.maxBuffer ?? 50e6,
      mask: createMasker([options.secret ?? SECRET]),
      emit: (i) => emitted.push(i),
    });
    b.start();
    for (const [i, step] of steps.entries()) {
      if (i > 0) vi.advanceTimersByTime(pause * INTERVAL);
      step(b);
    }
    vi.advanceTimersByTime(INTERVAL);
    b.stop();
    return emitted.flat();
  }
  const text = (items: UnnumberedItem[]) =>
    items.map((i) => (i.kind === "output" || i.kind === "log" ? i.text : i.kind === "events" ? JSON.stringify(i.events) : "")).join("");
  const kinds = (items: UnnumberedItem[]) => items.map((i) => (i.kind === "output" ? i.stream : i.kind));

  it("masks wrapped base64 split by an event, a runner line or stderr with pauses of several intervals around it, in order", () => {
    for (const between of [
      (b: OutputBatcher) => b.writeEvents('{"event":"runner_on_ok"}\n'),
      (b: OutputBatcher) => b.log("a runner line"),
      (b: OutputBatcher) => b.write("stderr", "[WARNING]: something\n"),
    ]) {
      const items = timed([(b) => b.write("stdout", first), between, (b) => b.write("stdout", rest)], 4);
      expect(windows(SECRET).filter((w) => text(items).includes(w))).toEqual([]);
      // The first line, then what came between, then the second line: the order they happened in.
      expect(kinds(items)).toEqual(["stdout", kinds(items)[1], "stdout"]);
      expect(kinds(items)[1]).not.toBe("stdout");
      const head = items[0];
      expect(head?.kind === "output" && head.text.split("\n")).toHaveLength(2); // the first line alone
    }
  });

  it("does not hold back items after output that cannot start a secret", () => {
    const emitted: UnnumberedItem[][] = [];
    const b = new OutputBatcher({
      intervalMs: INTERVAL,
      maxBatchBytes: 65536,
      maxBuffer: 50e6,
      mask: createMasker([SECRET]),
      emit: (i) => emitted.push(i),
    });
    b.start();
    b.write("stdout", "TASK [one] ***\n");
    b.writeEvents('{"type":"task_start"}\n');
    b.log("a runner line");
    vi.advanceTimersByTime(INTERVAL);
    expect(kinds(emitted.flat())).toEqual(["stdout", "events", "log"]);
    b.stop();
  });

  it("keeps events behind a held line of base64 until the stream goes on, at most 256 items", () => {
    const emitted: UnnumberedItem[][] = [];
    const b = new OutputBatcher({
      intervalMs: INTERVAL,
      maxBatchBytes: 65536,
      maxBuffer: 50e6,
      mask: createMasker([SECRET]),
      emit: (i) => emitted.push(i),
    });
    b.start();
    b.write("stdout", first);
    for (let i = 0; i < 10; i++) b.writeEvents(`{"n":${i}}\n`);
    vi.advanceTimersByTime(4 * INTERVAL);
    expect(emitted.flat()).toEqual([]); // held: the first line may go on in the next write
    for (let i = 10; i < 300; i++) b.writeEvents(`{"n":${i}}\n`);
    vi.advanceTimersByTime(INTERVAL);
    // Past the bound, the hold ends: the line and every event go, in order.
    const items = emitted.flat();
    expect(kinds(items)[0]).toBe("stdout");
    expect(items.flatMap((i) => (i.kind === "events" ? i.events : []))).toHaveLength(300);
    b.stop();
  });

  it("masks a multi-line secret whose lines are split by an event, in one flush: masked whole, before the event", () => {
    const secret = "line-one-of-the-key-Zq8w3Kp9\nline-two-of-the-key-Hf5t2Lm7";
    const emitted: UnnumberedItem[][] = [];
    const b = new OutputBatcher({
      intervalMs: INTERVAL,
      maxBatchBytes: 65536,
      maxBuffer: 50e6,
      mask: createMasker([secret]),
      emit: (i) => emitted.push(i),
    });
    b.write("stdout", "line-one-of-the-key-Zq8w3Kp9\n");
    b.writeEvents('{"e":1}\n');
    b.write("stdout", "line-two-of-the-key-Hf5t2Lm7\n");
    b.stop();
    const items = emitted.flat();
    // One mask took both lines and the line end between them: where the event came is inside
    // it, so the masked text goes in the place of the first line.
    expect(text(items)).toBe('********\n[{"e":1}]');
    expect(kinds(items)).toEqual(["stdout", "events"]);
  });

  it("drops the start of wrapped base64 held behind an event when the output cap cuts the rest", () => {
    const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
    const b64 = Buffer.from("x".repeat(45) + secret + "/" + "z".repeat(80)).toString("base64");
    const lines = b64.match(/.{1,76}/g)!;
    const firstHalf = Buffer.from("x".repeat(45) + secret)
      .toString("base64")
      .slice(60, 76); // secret bits on line 1
    const items = timed(
      [
        (b) => b.write("stdout", `${lines[0]}\n`),
        (b) => b.writeEvents('{"e":1}\n'),
        (b) => b.write("stdout", `${lines.slice(1).join("\n")}\n`),
      ],
      0,
      { secret, maxBuffer: 76 + 1 + 30 },
    );
    expect(text(items)).not.toContain(firstHalf);
  });
});

describe("maskOutputPieces", () => {
  it("cuts a run masked as one back at its line ends, also when a secret over two lines took one of them", () => {
    const secret = "line-one-of-the-key-Zq8w3Kp9\nline-two-of-the-key-Hf5t2Lm7";
    const out = (text: string): Entry => ({ kind: "output", stream: "stdout", text });
    const event: Entry = { kind: "events", events: [{}], chars: 2 };
    const entries = [
      out("TASK [a] ***\n"),
      event,
      out("line-one-of-the-key-Zq8w3Kp9\n"),
      event,
      out("line-two-of-the-key-Hf5t2Lm7\n"),
      event,
      out("done\n"),
    ];
    const masked = maskOutputPieces(entries, createMasker([secret]));
    // The key is masked whole (one mask for both lines): the pieces around it keep their place.
    expect(masked).toEqual(["TASK [a] ***\n", null, "********\n", null, "", null, "done\n"]);
  });
});
