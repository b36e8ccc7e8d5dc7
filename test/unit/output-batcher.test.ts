import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMasker } from "../../server/security/mask";
import { OutputBatcher, cutAtLineEnds, type BatcherOptions } from "../../server/rte/output-batcher";
import fs from "node:fs";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";

const T0 = 1_700_000_000_000;
const INTERVAL = 500;

let emitted: UnnumberedItem[][];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(T0);
  emitted = [];
});
afterEach(() => {
  vi.useRealTimers();
});

function batcher(options: Partial<BatcherOptions> = {}): OutputBatcher {
  const b = new OutputBatcher({
    intervalMs: INTERVAL,
    maxBatchBytes: 64 * 1024,
    maxBuffer: 50 * 1024 * 1024,
    mask: (text) => text,
    emit: (items) => emitted.push(items),
    ...options,
  });
  b.start();
  return b;
}

/** Everything emitted so far on one stream, concatenated. */
function streamText(stream: "stdout" | "stderr"): string {
  return emitted
    .flat()
    .map((item) => (item.kind === "output" && item.stream === stream ? item.text : ""))
    .join("");
}

const ts = (ms: number) => (T0 + ms) / 1000;

describe("OutputBatcher: batching", () => {
  it("emits whole lines at each interval, not before", () => {
    const b = batcher();
    b.write("stdout", "line 1\nline 2\n");
    vi.advanceTimersByTime(INTERVAL - 1);
    expect(emitted).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(emitted).toEqual([[{ kind: "output", stream: "stdout", text: "line 1\nline 2\n", ts: ts(500) }]]);
    b.stop();
  });

  it("holds a partial line back until it is completed", () => {
    const b = batcher();
    b.write("stdout", "done\npart");
    vi.advanceTimersByTime(INTERVAL);
    expect(emitted).toEqual([[{ kind: "output", stream: "stdout", text: "done\n", ts: ts(500) }]]);
    vi.advanceTimersByTime(100);
    b.write("stdout", "ial line\n");
    vi.advanceTimersByTime(400);
    expect(emitted[1]).toEqual([{ kind: "output", stream: "stdout", text: "partial line\n", ts: ts(1000) }]);
    b.stop();
  });

  it("emits a partial line that stays partial after one more interval (a prompt, progress dots)", () => {
    const b = batcher();
    b.write("stdout", "Continue? ");
    vi.advanceTimersByTime(INTERVAL);
    expect(emitted).toEqual([]);
    vi.advanceTimersByTime(INTERVAL);
    expect(emitted).toEqual([[{ kind: "output", stream: "stdout", text: "Continue? ", ts: ts(1000) }]]);
    b.stop();
  });

  it("flushes at once when 64 KB are waiting, without waiting for the interval", () => {
    const b = batcher();
    const line = `${"x".repeat(63)}\n`;
    b.write("stdout", line.repeat(1023));
    expect(emitted).toEqual([]);
    b.write("stdout", line);
    expect(emitted).toHaveLength(1);
    expect(emitted[0]).toEqual([{ kind: "output", stream: "stdout", text: line.repeat(1024), ts: ts(0) }]);
    b.stop();
  });

  it("keeps stdout and stderr apart, in the order they came", () => {
    const b = batcher();
    b.write("stderr", "warn\n");
    b.write("stdout", "out\n");
    vi.advanceTimersByTime(INTERVAL);
    expect(emitted).toEqual([
      [
        { kind: "output", stream: "stderr", text: "warn\n", ts: ts(500) },
        { kind: "output", stream: "stdout", text: "out\n", ts: ts(500) },
      ],
    ]);
    b.stop();
  });

  it("stop() emits what is left, partial lines included, and no timer fires afterwards", () => {
    const b = batcher();
    b.write("stdout", "no newline at the end");
    b.stop();
    expect(emitted).toEqual([[{ kind: "output", stream: "stdout", text: "no newline at the end", ts: ts(0) }]]);
    b.write("stdout", "late\n");
    vi.advanceTimersByTime(10 * INTERVAL);
    expect(emitted).toHaveLength(1);
  });
});

/** The emitted items of every batch, in order, as "kind:stream:text" (events as their JSON). */
function sequence(): string[] {
  return emitted.flat().map((item) => {
    if (item.kind === "output") return `${item.stream}:${item.text}`;
    if (item.kind === "events") return `events:${JSON.stringify(item.events)}`;
    if (item.kind === "log") return `log:${item.text}`;
    return item.kind;
  });
}

describe("OutputBatcher: order", () => {
  it("numbers a runner line logged before the playbook's first output before that output", () => {
    const b = batcher();
    b.log("job files ready: 3 fetched from the app, 0 from the cache");
    b.write("stdout", "\nPLAY [hello] ****\n");
    vi.advanceTimersByTime(INTERVAL);
    expect(sequence()).toEqual(["log:job files ready: 3 fetched from the app, 0 from the cache\n", "stdout:\nPLAY [hello] ****\n"]);
    b.stop();
  });

  it("puts a runner line between the output printed before it and after it", () => {
    const b = batcher();
    b.write("stdout", "before 1\nbefore 2\n");
    b.log("the runner speaks");
    b.write("stdout", "after\n");
    vi.advanceTimersByTime(INTERVAL);
    expect(sequence()).toEqual(["stdout:before 1\nbefore 2\n", "log:the runner speaks\n", "stdout:after\n"]);
    b.stop();
  });

  it("interleaves stdout and stderr as they arrived, merging consecutive pieces of one stream", () => {
    const b = batcher();
    b.write("stdout", "out 1\n");
    b.write("stdout", "out 2\n");
    b.write("stderr", "err 1\n");
    b.write("stderr", "err 2\n");
    b.write("stdout", "out 3\n");
    vi.advanceTimersByTime(INTERVAL);
    expect(sequence()).toEqual(["stdout:out 1\nout 2\n", "stderr:err 1\nerr 2\n", "stdout:out 3\n"]);
    b.stop();
  });

  it("places events between the lines around them", () => {
    const b = batcher();
    b.write("stdout", "TASK [one] ***\n");
    b.writeEvents('{"type":"task_start","task":"one"}\n');
    b.write("stdout", "ok: [localhost]\n");
    b.writeEvents('{"type":"host_result","task":"one"}\n{"type":"task_start","task":"two"}\n');
    vi.advanceTimersByTime(INTERVAL);
    expect(sequence()).toEqual([
      "stdout:TASK [one] ***\n",
      'events:[{"type":"task_start","task":"one"}]',
      "stdout:ok: [localhost]\n",
      'events:[{"type":"host_result","task":"one"},{"type":"task_start","task":"two"}]',
    ]);
    b.stop();
  });

  it("keeps a chatty stdout one item per batch, also while stderr holds a partial line", () => {
    const b = batcher();
    b.write("stderr", "a warning without its end yet");
    for (let i = 1; i <= 1000; i++) b.write("stdout", `line ${i}\n`);
    vi.advanceTimersByTime(INTERVAL);
    expect(emitted).toHaveLength(1);
    expect(emitted[0]).toHaveLength(1);
    expect(emitted[0]![0]).toMatchObject({ kind: "output", stream: "stdout" });
    b.write("stderr", "\n");
    vi.advanceTimersByTime(INTERVAL);
    expect(sequence().slice(1)).toEqual(["stderr:a warning without its end yet\n"]);
    b.stop();
  });

  it("leaves a partial line where it is: the complete lines before it move, its end follows later", () => {
    const b = batcher();
    b.write("stdout", "done\nprogress: ");
    b.log("runner line");
    b.write("stdout", "50%\n");
    vi.advanceTimersByTime(INTERVAL);
    expect(sequence()).toEqual(["stdout:done\n", "log:runner line\n", "stdout:progress: 50%\n"]);
    b.stop();
  });

  it("keeps the order across batches and at stop()", () => {
    const b = batcher();
    b.write("stdout", "first\n");
    vi.advanceTimersByTime(INTERVAL);
    b.write("stderr", "second\n");
    b.log("third");
    b.write("stdout", "fourth, partial");
    b.stop();
    expect(sequence()).toEqual(["stdout:first\n", "stderr:second\n", "log:third\n", "stdout:fourth, partial"]);
  });
});

describe("OutputBatcher: item size", () => {
  const MAX = 64 * 1024;

  it("cuts ~10 MB printed at once into items of at most 64 KB, at line ends, losing nothing", () => {
    const b = batcher();
    // A debug task printing a 1,000,000-element list: one write far above the limit.
    const lines: string[] = [];
    for (let i = 0; i < 1_000_000; i++) lines.push(`        "line ${i}",\n`);
    const text = lines.join("");
    expect(text.length).toBeGreaterThan(10_000_000);
    b.write("stdout", text);
    b.stop();
    const items = emitted.flat();
    expect(items.length).toBeGreaterThan(150);
    for (const item of items) {
      expect(item.kind).toBe("output");
      if (item.kind !== "output") continue;
      expect(Buffer.byteLength(item.text)).toBeLessThanOrEqual(MAX);
      expect(item.text.endsWith("\n")).toBe(true);
    }
    expect(streamText("stdout")).toBe(text);
  }, 20_000); // ~10 MB through the batcher: seconds on a busy machine

  it("cuts what piles up between two intervals the same way", () => {
    const b = batcher({ maxBatchBytes: 1000 });
    const line = `${"y".repeat(99)}\n`;
    // 30 pipe reads of 990 bytes each, the last line of each read cut in two.
    const all = line.repeat(297);
    for (let at = 0; at < all.length; at += 990) b.write("stdout", all.slice(at, at + 990));
    b.stop();
    for (const item of emitted.flat()) if (item.kind === "output") expect(Buffer.byteLength(item.text)).toBeLessThanOrEqual(1000);
    expect(streamText("stdout")).toBe(all);
  });

  it("counts bytes, not characters", () => {
    const b = batcher({ maxBatchBytes: 100 });
    const line = `${"é".repeat(19)}\n`; // 39 bytes, 20 characters
    b.write("stdout", line.repeat(10));
    b.stop();
    const texts = emitted.flat().map((item) => (item.kind === "output" ? item.text : ""));
    expect(texts).toEqual(Array<string>(5).fill(line.repeat(2)));
  });

  it("sends a single line longer than the limit whole, in an item of its own", () => {
    const b = batcher();
    const long = `${"z".repeat(100 * 1024)}\n`;
    b.write("stdout", `short before\n${long}short after\n`);
    b.stop();
    expect(sequence()).toEqual(["stdout:short before\n", `stdout:${long}`, "stdout:short after\n"]);
  });

  it("masks before it cuts: a secret folded over two lines at a cut is still masked", () => {
    const SECRET = "correct horse battery staple";
    const b = batcher({ maxBatchBytes: 200, mask: createMasker([SECRET]) });
    // to_nice_yaml folds a long scalar: the secret's space becomes a line break and indentation.
    const filler = `${"f".repeat(165)}\n`; // the first 200 bytes end between the two lines of the secret
    b.write("stdout", `${filler}  value: correct horse\n    battery staple\n${filler}`);
    b.stop();
    expect(JSON.stringify(emitted)).not.toContain("battery");
    for (const item of emitted.flat()) if (item.kind === "output") expect(Buffer.byteLength(item.text)).toBeLessThanOrEqual(200);
  });
});

describe("cutAtLineEnds", () => {
  it("keeps text within the limit whole, and cuts the rest at the last line end that fits", () => {
    expect(cutAtLineEnds("a\nb\n", 4)).toEqual(["a\nb\n"]);
    expect(cutAtLineEnds("a\nb\nc\n", 4)).toEqual(["a\nb\n", "c\n"]);
    expect(cutAtLineEnds("aa\nbb\ncc", 6)).toEqual(["aa\nbb\n", "cc"]);
    expect(cutAtLineEnds("aaaaaaaa\nb\n", 4)).toEqual(["aaaaaaaa\n", "b\n"]);
    expect(cutAtLineEnds("b\naaaaaaaa", 4)).toEqual(["b\n", "aaaaaaaa"]);
  });
});

describe("OutputBatcher: masking", () => {
  const SECRET = "hunter2-secret";

  it("masks output and log items", () => {
    const b = batcher({ mask: createMasker([SECRET]) });
    b.write("stdout", `pw=${SECRET}\n`);
    b.log(`could not use ${SECRET}`);
    vi.advanceTimersByTime(INTERVAL);
    expect(emitted).toEqual([
      [
        { kind: "output", stream: "stdout", text: "pw=********\n", ts: ts(500) },
        { kind: "log", text: "could not use ********\n", ts: ts(500) },
      ],
    ]);
    b.stop();
  });

  it("masks a secret that arrives in two writes with an interval tick between them", () => {
    const b = batcher({ mask: createMasker([SECRET]) });
    vi.advanceTimersByTime(INTERVAL - 1);
    b.write("stdout", "password is hunter2-");
    vi.advanceTimersByTime(1); // tick: the partial line is held
    b.write("stdout", "secret\n");
    vi.advanceTimersByTime(INTERVAL);
    b.stop();
    expect(streamText("stdout")).toBe("password is ********\n");
    expect(JSON.stringify(emitted)).not.toContain("hunter2");
  });

  it("masks a secret split across writes even when an older partial line was held before it", () => {
    const b = batcher({ mask: createMasker([SECRET]) });
    b.write("stdout", "waiting..."); // partial line, held at the 500 ms tick
    vi.advanceTimersByTime(INTERVAL + 400);
    // 900 ms: the held line ends and a new line starts, cut inside the secret by the pipe.
    b.write("stdout", " done\npassword is hunter2-");
    vi.advanceTimersByTime(100); // 1000 ms tick
    b.write("stdout", "secret\n");
    vi.advanceTimersByTime(INTERVAL);
    b.stop();
    expect(streamText("stdout")).toBe("waiting... done\npassword is ********\n");
    expect(JSON.stringify(emitted)).not.toContain("hunter2");
  });
  it("masks a secret split across writes when a runner line and stderr arrive in between", () => {
    const b = batcher({ mask: createMasker([SECRET]) });
    b.write("stdout", "waiting..."); // partial line, its clock starts at the 500 ms tick
    vi.advanceTimersByTime(INTERVAL + 400);
    // 900 ms: the held line ends and a new line starts, cut inside the secret by the pipe.
    b.write("stdout", " done\npassword is hunter2-");
    // Sync points: the complete line moves to the queue, the new partial line stays pending.
    b.write("stderr", "a warning\n");
    b.log("runner line");
    vi.advanceTimersByTime(100); // 1000 ms tick: the new partial line must not count as stale
    b.write("stdout", "secret\n");
    vi.advanceTimersByTime(INTERVAL);
    b.stop();
    expect(streamText("stdout")).toBe("waiting... done\npassword is ********\n");
    expect(JSON.stringify(emitted)).not.toContain("hunter2");
  });
});

describe("OutputBatcher: masking the base64 of a secret after a prefix", () => {
  it("masks it when the line arrives in two writes cut inside the base64, with an interval tick between them", () => {
    const secret = "hunter2-secret";
    const b = batcher({ mask: createMasker([secret]) });
    const header = Buffer.from(`user:${secret}`).toString("base64");
    vi.advanceTimersByTime(INTERVAL - 1);
    b.write("stdout", `Authorization: Basic ${header.slice(0, 12)}`);
    vi.advanceTimersByTime(1); // tick: the partial line is held
    b.write("stdout", `${header.slice(12)}\n`);
    vi.advanceTimersByTime(INTERVAL);
    b.stop();
    expect(streamText("stdout")).toBe(`Authorization: Basic ${header.slice(0, 6)}********\n`);
  });
});

describe("OutputBatcher: PROCESS_MAX_BUFFER", () => {
  it("logs one warning and drops the rest of that stream only", () => {
    const b = batcher({ maxBuffer: 100 });
    b.write("stdout", `${"a".repeat(59)}\n`);
    b.write("stdout", `${"b".repeat(59)}\n`); // 120 bytes: over the limit
    b.write("stdout", "c\n");
    b.write("stderr", `${"e".repeat(59)}\n`);
    vi.advanceTimersByTime(INTERVAL);
    b.write("stdout", "d\n");
    b.write("stderr", "f\n");
    vi.advanceTimersByTime(INTERVAL);
    b.stop();
    expect(streamText("stdout")).toBe(`${"a".repeat(59)}\n`);
    expect(streamText("stderr")).toBe(`${"e".repeat(59)}\nf\n`);
    const logs = emitted.flat().filter((i) => i.kind === "log");
    expect(logs).toEqual([
      {
        kind: "log",
        text: "stdout exceeded 100 bytes (PROCESS_MAX_BUFFER): the rest of stdout is not stored (the job is marked outputTruncated); the playbook continues\n",
        ts: ts(500),
      },
    ]);
    expect(b.truncated).toBe(true);
  });

  it("keeps the whole lines of the write that crosses the limit, up to the limit", () => {
    const b = batcher({ maxBuffer: 100 });
    b.write(
      "stdout",
      `${"a".repeat(59)}
`,
    );
    // 60 + 30 + 30 bytes: the first 30-byte line still fits (90), the second does not.
    b.write(
      "stdout",
      `${"b".repeat(29)}
${"c".repeat(29)}
`,
    );
    b.stop();
    expect(streamText("stdout")).toBe(`${"a".repeat(59)}
${"b".repeat(29)}
`);
    expect(b.truncated).toBe(true);
  });

  it("is not truncated within the limit", () => {
    const b = batcher({ maxBuffer: 100 });
    b.write("stdout", `${"a".repeat(99)}\n`);
    b.stop();
    expect(b.truncated).toBe(false);
  });

  it("counts bytes, not characters", () => {
    const b = batcher({ maxBuffer: 10 });
    b.write("stdout", "ééééé\n"); // 11 bytes, 6 characters
    b.stop();
    expect(streamText("stdout")).toBe("");
    expect(emitted.flat().map((i) => i.kind)).toEqual(["log"]);
  });
});

describe("OutputBatcher: callback plugin events", () => {
  it("parses JSON lines split across writes, in order", () => {
    const b = batcher();
    b.writeEvents('{"event":"play_start","n":1}\n{"event":"task_st');
    b.writeEvents('art","n":2}\n{"event"');
    b.writeEvents(':"stats","n":3}\n');
    vi.advanceTimersByTime(INTERVAL);
    expect(emitted).toEqual([
      [
        {
          kind: "events",
          events: [
            { event: "play_start", n: 1 },
            { event: "task_start", n: 2 },
            { event: "stats", n: 3 },
          ],
          ts: ts(500),
        },
      ],
    ]);
    b.stop();
  });

  it("turns a malformed event line into a log item in its place and keeps the good ones", () => {
    const b = batcher();
    b.writeEvents('{"ok":1}\nnot json at all\n\n{"ok":2}\n');
    vi.advanceTimersByTime(INTERVAL);
    expect(emitted).toEqual([
      [
        { kind: "events", events: [{ ok: 1 }], ts: ts(500) },
        { kind: "log", text: "ignored a malformed event line from the callback plugin (15 characters)\n", ts: ts(500) },
        { kind: "events", events: [{ ok: 2 }], ts: ts(500) },
      ],
    ]);
    b.stop();
  });

  const LABEL_SECRET = "Zr8-kappa-Secret-77Q";
  const eventItems = () => emitted.flat().flatMap((item) => (item.kind === "events" ? item.events : [])) as Record<string, string>[];

  it("masks a loop item label before cutting it to 200 characters: no first characters of a secret across the cut", () => {
    const b = batcher({ mask: createMasker([LABEL_SECRET]) });
    const item = `${"x".repeat(190)}${LABEL_SECRET}${"y".repeat(100)}`;
    const delegate = `${"d".repeat(195)}${LABEL_SECRET}`;
    b.writeEvents(`${JSON.stringify({ type: "item_result", item, delegate, action: "debug" })}\n`);
    b.stop();
    const [event] = eventItems();
    expect(event!.item).toBe(`${"x".repeat(190)}********yy`);
    // The mask itself cut: what is left of the secret is asterisks.
    expect(event!.delegate).toBe(`${"d".repeat(195)}*****`);
    expect(event!.action).toBe("debug");
    expect(JSON.stringify(emitted)).not.toContain("Zr8");
  });

  it("drops the start of a secret at the end of a label the callback plugin cut at its own cap", () => {
    const b = batcher({ mask: createMasker([LABEL_SECRET]) });
    // The plugin cut a 64 KiB label inside the secret; the RTE's cut to 200 after masking leaves
    // a secret's first characters at the end when the masked label is short.
    const prefix = LABEL_SECRET.slice(0, 10);
    const item = `${`${LABEL_SECRET} `.repeat(Math.floor((65_536 - 10) / (LABEL_SECRET.length + 1)))}`;
    const cut = `${item}${"z".repeat(65_536 - 10 - item.length)}${prefix}`.slice(-65_536);
    b.writeEvents(`${JSON.stringify({ type: "include", hosts: [], item: cut, file: `/tmp/${LABEL_SECRET.slice(0, 6)}` })}\n`);
    b.stop();
    const [event] = eventItems();
    expect(event!.item!.length).toBeLessThanOrEqual(200);
    expect(event!.item).toMatch(/^(\*{8} )+\**$/);
    // A short label that was not cut is left alone, even when it ends like a secret starts.
    expect(event!.file).toBe("/tmp/Zr8-ka");
  });

  it("drops the start of a secret left at the end of a label cut to 200 characters", () => {
    const b = batcher({ mask: createMasker([LABEL_SECRET]) });
    // Masked, the secret's first characters are not a secret: cut at 200, they would read as one.
    const item = `${"x".repeat(192)}${LABEL_SECRET.slice(0, 12)}${"w".repeat(50)}`;
    b.writeEvents(`${JSON.stringify({ type: "item_result", item })}\n`);
    b.stop();
    expect(eventItems()[0]!.item).toBe("x".repeat(192));
  });

  it("the callback plugin does not cut labels to 200 characters before the RTE masks them", () => {
    const plugin = fs.readFileSync("server/rte/ansible/callback_plugins/playform_events.py", "utf8");
    const caps = [...plugin.matchAll(/_text\([^()]*(?:\([^()]*\)[^()]*)*,\s*([A-Z_0-9]+)\)/g)].map((m) => m[1]);
    expect(caps.length).toBeGreaterThan(0);
    const values = Object.fromEntries([...plugin.matchAll(/^([A-Z_]+) = (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
    // The exception class name (100) holds no templated text; every other cap is the large one.
    for (const cap of caps) expect(cap === "100" || (values[cap!] ?? Number(cap)) >= 65_536, cap).toBe(true);
  });

  it("parses a last event line without newline at stop()", () => {
    const b = batcher();
    b.writeEvents('{"last":true}');
    b.stop();
    expect(emitted).toEqual([[{ kind: "events", events: [{ last: true }], ts: ts(0) }]]);
  });
});

describe("OutputBatcher: a secret split across two writes with a pause between them", () => {
  const SECRET = "hunter2-secret";

  it("masks a secret whose first half waits longer than an interval for the rest", () => {
    const b = batcher({ mask: createMasker([SECRET]) });
    b.write("stdout", "ok\npassword is hunter2-");
    vi.advanceTimersByTime(3 * INTERVAL); // the partial line goes stale: what could start the secret stays
    expect(streamText("stdout")).toBe("ok\npassword is ");
    b.write("stdout", "secret and more\n");
    vi.advanceTimersByTime(INTERVAL);
    expect(streamText("stdout")).toBe("ok\npassword is ******** and more\n");
    b.stop();
    expect(JSON.stringify(emitted)).not.toContain("hunter2");
  });

  it("masks the base64 of a secret after a prefix, cut anywhere by a pause", () => {
    const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
    const header = Buffer.from(`user:${secret}`).toString("base64");
    for (let at = 1; at < header.length; at++) {
      emitted = [];
      const b = batcher({ mask: createMasker([secret]) });
      b.write("stdout", `Authorization: Basic ${header.slice(0, at)}`);
      vi.advanceTimersByTime(3 * INTERVAL);
      b.write("stdout", `${header.slice(at)}\n`);
      vi.advanceTimersByTime(INTERVAL);
      b.stop();
      expect(streamText("stdout"), `cut at ${at}`).toBe(`Authorization: Basic ${header.slice(0, 6)}********\n`);
    }
  });

  /** What a batcher masking `secret` prints of `text` written in two writes, cut at `at`, with a pause between. */
  const printedCutAt = (secret: string, text: string, at: number): string => {
    emitted = [];
    const b = batcher({ mask: createMasker([secret]) });
    b.write("stdout", text.slice(0, at));
    vi.advanceTimersByTime(4 * INTERVAL);
    b.write("stdout", text.slice(at));
    vi.advanceTimersByTime(INTERVAL);
    b.stop();
    return streamText("stdout");
  };

  it("masks wrapped base64 (64 and 76 columns) cut by a pause anywhere, in its first line too", () => {
    // Attack batcher-split.ts: the first 10 characters of a 76-column line sent alone left the
    // rest of that line 66 characters long, no longer found as wrapped base64.
    const secret = 'Tq"8\\vé-Jz4/mR+w';
    const windows: string[] = [];
    for (let skip = 0; skip < 3; skip++) {
      const bytes = Buffer.from(secret).subarray(skip);
      const middle = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
      for (let at = 0; at + 8 <= middle.length; at += 4) windows.push(middle.slice(at, at + 8));
    }
    for (const [width, before] of [
      [76, "x".repeat(50)],
      [64, "y".repeat(55)],
    ] as const) {
      const b64 = Buffer.from(before + secret + "tail").toString("base64");
      const text = `${(b64.match(new RegExp(`.{1,${width}}`, "g")) ?? []).join("\n")}\n`;
      for (let at = 1; at < text.length; at++) {
        const printed = printedCutAt(secret, text, at);
        const joined = printed.replace(/\n/g, "");
        const leaked = windows.filter((w) => joined.includes(w));
        expect(leaked, `width ${width}, cut at ${at}: ${JSON.stringify(printed)}`).toEqual([]);
      }
    }
  });

  it("masks a URL-encoded secret cut between the %XX of one UTF-8 character", () => {
    // Attack batcher-split.ts: a pause after "q=Tq%228%5Cv%C3" (é is %C3%A9) sent it unmasked.
    const secret = 'Tq"8\\vé-Jz4/mR+w';
    const text = `q=${encodeURIComponent(secret)}&x=1\n`;
    for (let at = 1; at < text.length; at++) expect(printedCutAt(secret, text, at), `cut at ${at}`).toBe("q=********&x=1\n");
  });

  it("masks a secret's JSON-escaped form cut inside an escape sequence", () => {
    const b = batcher({ mask: createMasker(["pässwörd"]) });
    b.write("stdout", '"msg": "p\\u00');
    vi.advanceTimersByTime(3 * INTERVAL);
    b.write("stdout", 'e4ssw\\u00f6rd"\n');
    b.stop();
    expect(streamText("stdout")).toBe('"msg": "********"\n');
  });

  it("masks base64 wrapped at 76 columns when the pause falls at the line break", () => {
    const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
    const b64 = Buffer.from(`${"x".repeat(50)}${secret}`).toString("base64");
    const [line1, line2] = [b64.slice(0, 76), b64.slice(76)];
    expect(line2.length).toBeGreaterThan(8);
    const b = batcher({ mask: createMasker([secret]) });
    b.write("stdout", `${line1}\n`);
    vi.advanceTimersByTime(3 * INTERVAL);
    b.write("stdout", `${line2}\n`);
    b.stop();
    const out = streamText("stdout");
    expect(out.split("\n")).toHaveLength(3);
    expect(out).toMatch(/^eHh4[A-Za-z0-9+/]*\*{8}\n\*{8}[A-Za-z0-9+/=]*\n$/);
  });

  it("masks base64 wrapped in stdout_lines when the pause falls after the first item's line", () => {
    const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
    const b64 = Buffer.from(`${"x".repeat(50)}${secret}`).toString("base64");
    const [line1, line2] = [b64.slice(0, 76), b64.slice(76)];
    const b = batcher({ mask: createMasker([secret]) });
    b.write("stdout", `    "stdout_lines": [\n        "${line1}",\n`);
    vi.advanceTimersByTime(3 * INTERVAL);
    b.write("stdout", `        "${line2}"\n    ]\n`);
    b.stop();
    const out = streamText("stdout");
    expect(out).toMatch(/^ {4}"stdout_lines": \[\n {8}"eHh4[A-Za-z0-9+/]*\*{8}",\n {8}"\*{8}[A-Za-z0-9+/=]*"\n {4}\]\n$/);
  });

  it("masks base64 wrapped in a JSON string (escaped \\n) when the pause falls inside the first line", () => {
    const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
    const b64 = Buffer.from(`${"x".repeat(50)}${secret}`).toString("base64");
    const [line1, line2] = [b64.slice(0, 76), b64.slice(76)];
    for (const at of [70, 76, 78]) {
      emitted = [];
      const written = `"stdout": "${line1}\\n${line2}"\n`;
      const b = batcher({ mask: createMasker([secret]) });
      b.write("stdout", written.slice(0, 11 + at));
      vi.advanceTimersByTime(3 * INTERVAL);
      b.write("stdout", written.slice(11 + at));
      b.stop();
      expect(streamText("stdout"), `cut at ${at}`).toMatch(/^"stdout": "eHh4[A-Za-z0-9+/]*\*{8}\\n\*{8}[A-Za-z0-9+/=]*"\n$/);
    }
  });

  it("masks a secret cut by the partial line's size limit", () => {
    const b = batcher({ maxBatchBytes: 100, mask: createMasker([SECRET]) });
    b.write("stdout", `${"p".repeat(395)}hunter2-`);
    b.write("stdout", "secret\n");
    b.stop();
    expect(streamText("stdout")).toBe(`${"p".repeat(395)}********\n`);
  });

  it("masks a long secret (a key file: literal forms only) split by a pause", () => {
    const key = Array.from(
      { length: 5000 },
      (_, i) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[(i * 7919) % 62],
    ).join("");
    const b = batcher({ mask: createMasker([key]) });
    b.write("stdout", `key: ${key.slice(0, 3000)}`);
    vi.advanceTimersByTime(3 * INTERVAL);
    expect(streamText("stdout")).toBe("key: ");
    b.write("stdout", `${key.slice(3000)}\n`);
    b.stop();
    expect(streamText("stdout")).toBe("key: ********\n");
  });

  it("still sends a partial line that cannot start a secret after one interval, and complete lines at once", () => {
    const b = batcher({ mask: createMasker([SECRET]) });
    b.write("stdout", "TASK [wait] ***\nwaiting...");
    vi.advanceTimersByTime(INTERVAL);
    expect(streamText("stdout")).toBe("TASK [wait] ***\n");
    vi.advanceTimersByTime(INTERVAL);
    expect(streamText("stdout")).toBe("TASK [wait] ***\nwaiting...");
    b.stop();
  });

  it("holds at most the end that could start a secret, and sends it at the end of the stream", () => {
    const b = batcher({ mask: createMasker([SECRET]) });
    b.write("stdout", "who is hun");
    vi.advanceTimersByTime(3 * INTERVAL);
    expect(streamText("stdout")).toBe("who is ");
    b.stop();
    expect(streamText("stdout")).toBe("who is hun");
  });
});
