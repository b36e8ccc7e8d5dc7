import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { OutputChunk, OutputWindow } from "@/components/api/types";
import { JobLines, type LinesQuery } from "./job-lines";

/** A fake server holding `total` numbered lines; every read waits until the test answers it. */
class FakeServer {
  total: number;
  final = false;
  reads: { query: LinesQuery; signal: AbortSignal; resolve: () => void; reject: (e: unknown) => void }[] = [];

  constructor(total: number) {
    this.total = total;
  }

  read = (query: LinesQuery, signal: AbortSignal): Promise<OutputWindow> =>
    new Promise<OutputWindow>((resolve, reject) => {
      const entry = {
        query,
        signal,
        resolve: () => resolve(this.window(query)),
        reject,
      };
      signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      this.reads.push(entry);
    });

  window(query: LinesQuery): OutputWindow {
    const from = "tail" in query ? Math.max(1, this.total - query.tail + 1) : query.from;
    const count = "tail" in query ? query.tail : query.count;
    const to = Math.min(this.total, from + count - 1);
    const lines = [];
    for (let n = from; n <= to; n++) lines.push({ n, stream: "stdout", text: `line ${n}` });
    return { jobId: 1, from, total: this.total, final: this.final, ansi: null, lines };
  }

  /** Answers every read not aborted yet. */
  async answerAll(): Promise<void> {
    const pending = this.reads.filter((r) => !r.signal.aborted);
    this.reads = [];
    for (const r of pending) r.resolve();
    await flush();
  }

  /** The `from` of the page reads asked for and still running. */
  pageReads(): number[] {
    return this.reads.filter((r) => !r.signal.aborted && "from" in r.query).map((r) => (r.query as { from: number }).from);
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

function chunk(firstLine: number, count: number, seq = firstLine): OutputChunk {
  let text = "";
  for (let i = 0; i < count; i++) text += `line ${firstLine + i}\n`;
  return { seq, stream: "stdout", text, firstLine, lineCount: count };
}

async function settle(): Promise<void> {
  await vi.advanceTimersByTimeAsync(100);
  await flush();
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("JobLines: reading a finished job", () => {
  it("reads the tail first: total, final and the last lines", async () => {
    const server = new FakeServer(1_000_000);
    server.final = true;
    const lines = new JobLines(server.read, { pageSize: 500 });
    const tail = lines.readTail();
    expect(server.reads[0]!.query).toEqual({ tail: 500 });
    await server.answerAll();
    await tail;
    const state = lines.getState();
    expect(state.total).toBe(1_000_000);
    expect(state.final).toBe(true);
    expect(state.loaded).toBe(true);
    expect(state.line(1_000_000)?.text).toBe("line 1000000");
    expect(state.line(999_501)?.text).toBe("line 999501");
    expect(state.line(999_500)).toBeUndefined();
  });

  it("reads only the pages near the view, once each, and aborts those no longer wanted", async () => {
    const server = new FakeServer(1_000_000);
    const lines = new JobLines(server.read, { pageSize: 500, margin: 100 });
    const tail = lines.readTail();
    await server.answerAll();
    await tail;

    lines.setView(1, 40);
    await settle();
    expect(server.pageReads()).toEqual([1]);
    // The same view again, or one that needs the same page: no second read.
    lines.setView(1, 40);
    lines.setView(2, 41);
    await settle();
    expect(server.pageReads()).toEqual([1]);

    // Jump to the middle before the first read answered: that read is aborted.
    lines.setView(500_000, 500_040);
    expect(server.reads[0]!.signal.aborted).toBe(true);
    await settle();
    // 500,000 is the last line of page 999 (lines 499,501..500,000); the margin reaches into the next one.
    expect(server.pageReads().sort((a, b) => a - b)).toEqual([499_501, 500_001]);
    await server.answerAll();
    expect(lines.getState().line(500_000)?.text).toBe("line 500000");
    expect(lines.getState().line(500_040)?.text).toBe("line 500040");
  });

  it("keeps memory bounded: scrolling through a million lines holds at most maxPages pages", async () => {
    const server = new FakeServer(1_000_000);
    server.final = true;
    const lines = new JobLines(server.read, { pageSize: 500, maxPages: 10 });
    const tail = lines.readTail();
    await server.answerAll();
    await tail;
    for (let first = 1; first < 1_000_000; first += 7_919) {
      lines.setView(first, first + 40);
      await settle();
      await server.answerAll();
      expect(lines.cache.pageCount).toBeLessThanOrEqual(10);
    }
    expect(lines.cache.size).toBeLessThanOrEqual(10 * 500);
  });

  it("tries a failed page again after a while, not at once", async () => {
    const server = new FakeServer(10_000);
    const lines = new JobLines(server.read, { pageSize: 500, retryMs: 2000 });
    lines.setJob(10_000, true);
    lines.setView(1, 40);
    await settle();
    expect(server.pageReads()).toEqual([1]);
    server.reads.shift()!.reject(new Error("502"));
    await flush();
    await settle();
    expect(server.pageReads()).toEqual([]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(server.pageReads()).toEqual([1]);
  });

  it("reports the tail read's failure and stays usable", async () => {
    const server = new FakeServer(10);
    const lines = new JobLines(server.read);
    const tail = lines.readTail();
    server.reads.shift()!.reject(new Error("offline"));
    await expect(tail).rejects.toThrow("offline");
    expect(lines.getState().loaded).toBe(true);
    expect(lines.getState().error).toBeInstanceOf(Error);
    const again = lines.readTail();
    await server.answerAll();
    await again;
    expect(lines.getState().error).toBeNull();
    expect(lines.getState().total).toBe(10);
  });
});

describe("JobLines: following live", () => {
  async function liveJob(total: number, options = {}) {
    const server = new FakeServer(total);
    const lines = new JobLines(server.read, { pageSize: 100, ...options });
    const tail = lines.readTail();
    await server.answerAll();
    await tail;
    lines.setLive(true);
    return { server, lines };
  }

  it("follows from the last line read, then from the highest line without a gap", async () => {
    const { lines } = await liveJob(250);
    expect(lines.followCursor).toBe(250);
    lines.receiveChunks([chunk(251, 3)]);
    expect(lines.followCursor).toBe(253);
    // Out of order: 257.. arrives before 254..256. The cursor waits for the gap, then jumps over both.
    lines.receiveChunks([chunk(257, 2)]);
    expect(lines.followCursor).toBe(253);
    expect(lines.getState().total).toBe(258);
    lines.receiveChunks([chunk(254, 3)]);
    expect(lines.followCursor).toBe(258);
    // A chunk again: nothing changes.
    const version = lines.getState().version;
    lines.receiveChunks([chunk(254, 3), chunk(257, 2)]);
    expect(lines.getState().version).toBe(version);
    expect(lines.getState().line(256)?.text).toBe("line 256");
  });

  it("counts total as the larger of Job.lines and the lines known", async () => {
    const { lines } = await liveJob(250);
    lines.setJob(240, false);
    expect(lines.getState().total).toBe(250);
    lines.setJob(300, false);
    expect(lines.getState().total).toBe(300);
    lines.receiveChunks([chunk(251, 60)]);
    expect(lines.getState().total).toBe(310);
  });

  it("leaves lines the socket owes to it, and reads them over HTTP when it stalls", async () => {
    const { server, lines } = await liveJob(250, { stallMs: 4000 });
    lines.setView(200, 250);
    await settle();
    // Lines 101..200 are below the cursor and missing: read. Nothing above 250 is.
    expect(server.pageReads()).toEqual([101]);
    await server.answerAll();
    server.total = 300;
    lines.setJob(300, false);
    lines.setView(250, 300);
    await settle();
    expect(server.pageReads()).toEqual([]);
    // The socket stays silent: after stallMs the owed lines are read over HTTP.
    await vi.advanceTimersByTimeAsync(4000);
    expect(server.pageReads()).toEqual([201]);
    await server.answerAll();
    expect(lines.getState().line(300)?.text).toBe("line 300");
  });

  it("reads owed lines over HTTP at once while the socket is down", async () => {
    const { server, lines } = await liveJob(250);
    lines.setLive(false);
    server.total = 300;
    lines.setJob(300, false);
    lines.setView(250, 300);
    await settle();
    // 201..300 for the view, and 101..150 that the read-ahead reaches (the tail read began at 151).
    expect(server.pageReads().sort((a, b) => a - b)).toEqual([101, 201]);
  });

  it("does not keep live lines for pages far from the view; reads them when scrolled back", async () => {
    const { server, lines } = await liveJob(1000, { maxPages: 4 });
    lines.setView(1, 40);
    await settle();
    await server.answerAll();
    for (let first = 1001; first < 3000; first += 100) lines.receiveChunks([chunk(first, 100)]);
    expect(lines.getState().total).toBe(3000);
    expect(lines.followCursor).toBe(3000);
    // The view's page, the first tail read's and the tail's: none of the pages live lines passed through.
    expect(lines.cache.heldPages()).toEqual([0, 9, 28, 29]);
    expect(lines.getState().line(1500)).toBeUndefined();
    lines.setView(1490, 1530);
    await settle();
    expect(server.pageReads().sort((a, b) => a - b)).toEqual([1401, 1501]);
  });

  it("takes the job's end from Job or from a read", async () => {
    const { server, lines } = await liveJob(10);
    expect(lines.getState().final).toBe(false);
    server.final = true;
    const tail = lines.readTail();
    await server.answerAll();
    await tail;
    expect(lines.getState().final).toBe(true);
    const other = new JobLines(server.read);
    other.setJob(10, true);
    expect(other.getState().final).toBe(true);
  });

  it("stop() aborts every read; start() resumes", async () => {
    const server = new FakeServer(10_000);
    const lines = new JobLines(server.read, { pageSize: 500 });
    lines.setJob(10_000, true);
    lines.setView(1, 40);
    await settle();
    expect(server.pageReads()).toEqual([1]);
    lines.stop();
    expect(server.pageReads()).toEqual([]);
    lines.start();
    await settle();
    expect(server.pageReads()).toEqual([1]);
  });
});
