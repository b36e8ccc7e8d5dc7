/**
 * The server side of windows by line (a job page reads only the lines on screen), against a real migrated SQLite database:
 * chunks stored the way the /rte hub stores them (storeRteItems numbers them), then read back
 * by listLineChunks (which chunks hold a window) and outputWindow (the lines, and the colour
 * state at the window's first line). The integration test checks the same on a real
 * 200,000-line job; this one pins the edge cases with chunks small enough to reason about.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../server/data/db";
import { listLineChunks } from "../../server/data/job-output";
import { newJobInput } from "../support/new-job";
import { JobLifecycle } from "../../server/jobs/lifecycle";
import { outputWindow, storeRteItems } from "../../server/jobs/output";
import type { JobItem } from "../../server/protocol/rte-messages";
import { useTempSqliteDatabase } from "../support/temp-db";

const ESC = "\x1b";
const GREEN = `${ESC}[32m`;
const BOLD_RED = `${ESC}[1;31m`;

let cleanup: () => Promise<void>;
let jobId: number;

const newJob = newJobInput();

/**
 * Lines as stored (seq: lines):
 *   1 (runner): 1 "job files ready: …"
 *   2 (stdout): 2 "PLAY [p]", 3 green "ok: [a]", 4 green "still green"   (colour left on)
 *   3 (events): no lines
 *   4 (runner): 5 "[runner] a warning"                                    (takes no colour, changes none)
 *   5 (stdout): 6 green "g1", 7 green "g2<reset>", 8 "plain"
 *   6 (stdout): 9 bold red "r1", 10 bold red "r2"                          (colour left on)
 */
const ITEMS: JobItem[] = [
  { seq: 1, ts: 1, kind: "log", text: "job files ready: 1 fetched from the app, 0 from the cache\n" },
  { seq: 2, ts: 1, kind: "output", stream: "stdout", text: `PLAY [p]\n${GREEN}ok: [a]\nstill green\n` },
  { seq: 3, ts: 1, kind: "events", events: [] },
  { seq: 4, ts: 1, kind: "log", text: "[runner] a warning\n" },
  { seq: 5, ts: 1, kind: "output", stream: "stdout", text: `g1\ng2${ESC}[0m\nplain\n` },
  { seq: 6, ts: 1, kind: "output", stream: "stdout", text: `${BOLD_RED}r1\nr2\n` },
];
const TOTAL = 10;

beforeAll(async () => {
  ({ cleanup } = await useTempSqliteDatabase());
  const db = getDb();
  await db.user.create({ data: { id: "user-1", username: "alice", passwordHash: "x", role: "admin" } });
  await db.form.create({ data: { id: "form-1", name: "hello", title: "Hello", definition: {}, sourceDir: "/nowhere" } });
  const lifecycle = new JobLifecycle({ publish: () => undefined, wakeDispatcher: () => undefined });
  jobId = await lifecycle.create(newJob, false);
  // Two batches, as an RTE sends them: numbering carries on from the first to the second.
  await storeRteItems(jobId, ITEMS.slice(0, 3));
  await storeRteItems(jobId, ITEMS.slice(3));
});
afterAll(async () => {
  await cleanup?.();
});

const texts = async (from: number, count: number) => (await outputWindow(jobId, { from, count })).lines.map((l) => l.text);

describe("listLineChunks: the chunks holding a window", () => {
  it("gives the chunk containing the first line, found mid-chunk, and those starting inside the window", async () => {
    expect((await listLineChunks(jobId, 3, 1)).map((c) => c.seq)).toEqual([2]);
    expect((await listLineChunks(jobId, 3, 4)).map((c) => c.seq)).toEqual([2, 4, 5]);
    expect((await listLineChunks(jobId, 5, 1)).map((c) => c.seq)).toEqual([4]);
    const [chunk] = await listLineChunks(jobId, 7, 1);
    expect(chunk).toEqual({ seq: 5, stream: "stdout", text: `g1\ng2${ESC}[0m\nplain\n`, firstLine: 6, lineCount: 3, ansi: GREEN });
  });

  it("gives nothing beyond the last line", async () => {
    expect(await listLineChunks(jobId, TOTAL + 1, 10)).toEqual([]);
  });
});

describe("outputWindow: lines by number", () => {
  it("numbers the runner's line 1 and the playbook's lines after it, each line once", async () => {
    const all = await outputWindow(jobId, { from: 1, count: 5000 });
    expect(all.total).toBe(TOTAL);
    expect(all.lines.map((l) => l.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(all.lines[0]).toEqual({ n: 1, stream: "rte", text: "job files ready: 1 fetched from the app, 0 from the cache" });
    expect(all.lines[1]).toEqual({ n: 2, stream: "stdout", text: "PLAY [p]" });
    expect(all.ansi).toBeNull();
  });

  it("starts mid-chunk, skipping the chunk's earlier lines", async () => {
    const window = await outputWindow(jobId, { from: 3, count: 2 });
    expect(window.from).toBe(3);
    expect(window.lines).toEqual([
      { n: 3, stream: "stdout", text: `${GREEN}ok: [a]` },
      { n: 4, stream: "stdout", text: "still green" },
    ]);
  });

  it("crosses chunk boundaries (runner lines included) and stops at the window's last line, mid-chunk", async () => {
    const window = await outputWindow(jobId, { from: 4, count: 4 });
    expect(window.lines.map((l) => [l.n, l.stream])).toEqual([
      [4, "stdout"],
      [5, "rte"],
      [6, "stdout"],
      [7, "stdout"],
    ]);
    expect(window.lines.map((l) => l.text)).toEqual(["still green", "[runner] a warning", "g1", `g2${ESC}[0m`]);
  });

  it("carries the colour state to the window's first line: from the chunk's start, through the lines before it", async () => {
    const ansiAt = async (from: number) => (await outputWindow(jobId, { from, count: 1 })).ansi;
    // Line 3 sets green itself: the state at its start is still plain.
    expect(await ansiAt(3)).toBeNull();
    // Mid-chunk, after the line that turned green on.
    expect(await ansiAt(4)).toBe(GREEN);
    // A runner line takes the state in force and leaves it unchanged for the next chunk.
    expect(await ansiAt(5)).toBe(GREEN);
    // The first line of a chunk: the state stored with the chunk.
    expect(await ansiAt(6)).toBe(GREEN);
    expect(await ansiAt(7)).toBe(GREEN);
    // After the reset at the end of line 7.
    expect(await ansiAt(8)).toBeNull();
    expect(await ansiAt(9)).toBeNull();
    expect(await ansiAt(10)).toBe(BOLD_RED);
    // A window crossing chunks has the state of its first line only.
    expect((await outputWindow(jobId, { from: 4, count: 6 })).ansi).toBe(GREEN);
  });

  it("answers a window from beyond the end with no lines, and one running past the end with what there is", async () => {
    expect(await outputWindow(jobId, { from: TOTAL + 1, count: 10 })).toEqual({
      jobId,
      from: TOTAL + 1,
      total: TOTAL,
      final: false,
      ansi: null,
      lines: [],
    });
    expect(await outputWindow(jobId, { from: 1_000_000, count: 1 })).toMatchObject({ total: TOTAL, lines: [] });
    expect(await texts(TOTAL - 1, 100)).toEqual([`${BOLD_RED}r1`, "r2"]);
  });

  it("gives the last lines for a tail, with the colour state at the first of them", async () => {
    const tail = await outputWindow(jobId, { tail: 3 });
    expect(tail.from).toBe(8);
    expect(tail.lines.map((l) => l.text)).toEqual(["plain", `${BOLD_RED}r1`, "r2"]);
    expect(tail.ansi).toBeNull();
    expect((await outputWindow(jobId, { tail: 100 })).from).toBe(1);
  });
});
