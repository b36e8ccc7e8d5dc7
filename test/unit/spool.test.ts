import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";
import { Spool } from "../../server/rte/spool";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-spool-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const out = (text: string, ts = 1_700_000_000): UnnumberedItem => ({ kind: "output", stream: "stdout", text, ts });
const end = (ts = 1_700_000_009): UnnumberedItem => ({ kind: "end", status: "success", exitCode: 0, reason: null, ts });

function itemsFile(jobId: number): string {
  return path.join(dir, String(jobId), "items.jsonl");
}

describe("Spool", () => {
  it("numbers a job's items 1..N across appends and writes them to <job>/items.jsonl", () => {
    const spool = new Spool(dir);
    spool.open(7);
    const first = spool.append(7, [{ kind: "start", ts: 1 }, out("a\n")]);
    const second = spool.append(7, [out("b\n")]);
    expect(first.map((i) => i.seq)).toEqual([1, 2]);
    expect(second).toEqual([{ kind: "output", stream: "stdout", text: "b\n", ts: 1_700_000_000, seq: 3 }]);
    expect(spool.pending(7).map((i) => i.seq)).toEqual([1, 2, 3]);
    const lines = fs.readFileSync(itemsFile(7), "utf8").split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe("");
    expect(lines.slice(0, 3).map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([1, 2, 3]);
  });

  it("numbers each job on its own", () => {
    const spool = new Spool(dir);
    spool.open(1);
    spool.open(2);
    spool.append(1, [out("x"), out("y")]);
    expect(spool.append(2, [out("z")])[0]!.seq).toBe(1);
    expect(spool.jobIds().sort()).toEqual([1, 2]);
    expect(spool.pendingCount()).toBe(3);
  });

  it("refuses items for a job it has not opened", () => {
    expect(() => new Spool(dir).append(3, [out("x")])).toThrow("job 3 has no spool");
  });

  it("removes acknowledged items from the pending ones and records the watermark", () => {
    const spool = new Spool(dir);
    spool.open(7);
    spool.append(7, [out("1"), out("2"), out("3"), out("4")]);
    spool.acknowledge(7, [1, 2]);
    expect(spool.pending(7).map((i) => i.seq)).toEqual([3, 4]);
    expect(fs.readFileSync(path.join(dir, "7", "acked"), "utf8")).toBe("2");
    // Out of order: 4 is stored, 3 is not yet; the watermark stays below 3.
    spool.acknowledge(7, [4]);
    expect(spool.pending(7).map((i) => i.seq)).toEqual([3]);
    expect(fs.readFileSync(path.join(dir, "7", "acked"), "utf8")).toBe("2");
    expect(spool.pendingCount()).toBe(1);
  });

  it("after a restart, recover() gives back exactly the unacknowledged items and numbering continues", () => {
    const before = new Spool(dir);
    before.open(7);
    const written = before.append(7, [{ kind: "start", ts: 1 }, out("one\n"), out("two\n"), out("three\n")]);
    before.acknowledge(7, [1, 2]);

    const after = new Spool(dir);
    expect(after.recover()).toEqual([7]);
    expect(after.pending(7)).toEqual(written.slice(2));
    after.open(7); // no-op for a recovered job: must not reset its numbering
    expect(after.append(7, [out("four\n")])[0]!.seq).toBe(5);
    expect(after.pending(7).map((i) => i.seq)).toEqual([3, 4, 5]);
  });

  it("recover() ignores folders that are not job ids and returns nothing for an empty spool", () => {
    fs.mkdirSync(path.join(dir, "lost+found"));
    fs.mkdirSync(path.join(dir, "0"));
    const spool = new Spool(dir);
    expect(spool.recover()).toEqual([]);
    expect(spool.pendingCount()).toBe(0);
  });

  it("deletes the job's spool folder once its end item is acknowledged, not before", () => {
    const spool = new Spool(dir);
    spool.open(7);
    spool.append(7, [{ kind: "start", ts: 1 }, out("x\n"), end()]);
    spool.acknowledge(7, [1, 3]);
    expect(fs.existsSync(path.join(dir, "7"))).toBe(true);
    expect(spool.jobIds()).toEqual([7]);
    spool.acknowledge(7, [2]);
    expect(fs.existsSync(path.join(dir, "7"))).toBe(false);
    expect(spool.jobIds()).toEqual([]);
    expect(new Spool(dir).recover()).toEqual([]);
  });

  it("keeps a job that has no end yet even when everything is acknowledged", () => {
    const spool = new Spool(dir);
    spool.open(7);
    spool.append(7, [out("x\n")]);
    spool.acknowledge(7, [1]);
    expect(spool.pending(7)).toEqual([]);
    expect(fs.existsSync(path.join(dir, "7"))).toBe(true);
  });

  it("drop() forgets a job and deletes its folder", () => {
    const spool = new Spool(dir);
    spool.open(7);
    spool.append(7, [out("x\n")]);
    spool.drop(7);
    expect(spool.jobIds()).toEqual([]);
    expect(spool.pending(7)).toEqual([]);
    expect(fs.existsSync(path.join(dir, "7"))).toBe(false);
  });

  it("tolerates a torn last line left by a crash mid-write", () => {
    const before = new Spool(dir);
    before.open(7);
    before.append(7, [out("one\n"), out("two\n")]);
    before.acknowledge(7, [1]);
    fs.appendFileSync(itemsFile(7), '{"kind":"output","stream":"stdout","text":"thr');

    const after = new Spool(dir);
    expect(after.recover()).toEqual([7]);
    expect(after.pending(7).map((i) => i.seq)).toEqual([2]);
    expect(after.append(7, [out("three\n")])[0]!.seq).toBe(3);
  });

  it("does not lose the first item written after a torn line when it restarts again", () => {
    const first = new Spool(dir);
    first.open(7);
    first.append(7, [out("one\n")]);
    fs.appendFileSync(itemsFile(7), '{"kind":"output","stream":"stdout","text":"tw'); // crash mid-write

    const second = new Spool(dir);
    second.recover();
    second.append(7, [out("two\n")]);
    second.append(7, [out("three\n")]);

    // Crash again before anything was acknowledged: every item is still owed to the app.
    const third = new Spool(dir);
    third.recover();
    expect(third.pending(7).map((i) => [i.seq, i.kind === "output" ? i.text : i.kind])).toEqual([
      [1, "one\n"],
      [2, "two\n"],
      [3, "three\n"],
    ]);
  });

  it("sends at most so many items and so many bytes per message, at least one item, oldest first", () => {
    const spool = new Spool(dir);
    spool.open(7);
    const line = `${"x".repeat(64 * 1024 - 1)}\n`;
    spool.append(
      7,
      Array.from({ length: 300 }, () => out(line)),
    );
    // 300 items of 64 KB are ~19 MB of JSON: above the app's 16 MB message limit at once.
    const batch = spool.nextBatch(7, 500, 4 * 1024 * 1024);
    expect(batch.map((i) => i.seq)).toEqual(Array.from({ length: 63 }, (_, i) => i + 1));
    expect(Buffer.byteLength(JSON.stringify(batch))).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(spool.nextBatch(7, 10, 4 * 1024 * 1024)).toHaveLength(10);
    // One item above the byte limit still goes (alone), or it would never be sent.
    expect(spool.nextBatch(7, 500, 1000).map((i) => i.seq)).toEqual([1]);
    spool.acknowledge(7, [1, 2, 3]);
    expect(spool.nextBatch(7, 2, 4 * 1024 * 1024).map((i) => i.seq)).toEqual([4, 5]);
  });
});
