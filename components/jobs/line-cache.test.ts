import { describe, expect, it } from "vitest";
import type { OutputChunk, OutputLine } from "@/components/api/types";
import { PLAIN } from "./ansi";
import { LineCache, styleFromSgr } from "./line-cache";

const ESC = "\x1b";

function lines(from: number, count: number, text = (n: number) => `line ${n}`): OutputLine[] {
  return Array.from({ length: count }, (_, i) => ({ n: from + i, stream: "stdout", text: text(from + i) }));
}

function chunk(firstLine: number, text: string, stream = "stdout", seq = firstLine): OutputChunk {
  const lineCount = text === "" ? 0 : (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n").length;
  return { seq, stream, text, firstLine, lineCount };
}

function texts(cache: LineCache, from: number, to: number): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  for (let n = from; n <= to; n++) out.push(cache.get(n)?.text);
  return out;
}

describe("LineCache pages", () => {
  it("numbers pages from 0, each holding pageSize lines", () => {
    const cache = new LineCache(10);
    expect(cache.pageOf(1)).toBe(0);
    expect(cache.pageOf(10)).toBe(0);
    expect(cache.pageOf(11)).toBe(1);
    expect(cache.pageRange(2)).toEqual([21, 30]);
  });

  it("stores a window by line number and says what is missing", () => {
    const cache = new LineCache(10);
    expect(cache.putWindow(5, null, lines(5, 10))).toBe(true);
    expect(texts(cache, 4, 15)).toEqual([undefined, ...Array.from({ length: 10 }, (_, i) => `line ${i + 5}`), undefined]);
    expect(cache.heldPages()).toEqual([0, 1]);
    expect(cache.missing(5, 14)).toBe(false);
    expect(cache.missing(4, 14)).toBe(true);
    expect(cache.missing(5, 15)).toBe(true);
    expect(cache.size).toBe(10);
  });

  it("ignores a window whose lines do not run on from one number", () => {
    const cache = new LineCache(10);
    expect(cache.putWindow(1, null, [...lines(1, 2), ...lines(5, 1)])).toBe(false);
    expect(cache.size).toBe(0);
  });

  it("evicts the pages farthest from the centre first, never the kept ones", () => {
    const cache = new LineCache(10);
    for (let p = 0; p < 8; p++) cache.putWindow(p * 10 + 1, null, lines(p * 10 + 1, 10));
    const dropped = cache.evict(4, 35, (p) => p === 7);
    // Centre is page 3: pages 0 and 6 are farthest besides 7 (kept), then 1 and 5.
    expect(dropped.sort()).toEqual([0, 1, 5, 6]);
    expect(cache.heldPages()).toEqual([2, 3, 4, 7]);
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(75)?.text).toBe("line 75");
  });

  it("does not create a page the keep rule refuses, but fills held ones", () => {
    const cache = new LineCache(10);
    cache.putWindow(1, null, lines(1, 5));
    expect(cache.putChunk(chunk(6, "a\nb\n"), () => false)).toBe(true);
    expect(cache.putChunk(chunk(41, "far\n"), () => false)).toBe(false);
    expect(texts(cache, 5, 7)).toEqual(["line 5", "a", "b"]);
    expect(cache.get(41)).toBeUndefined();
    // A chunk spanning a refused page and a held one keeps the held page's lines.
    expect(cache.putChunk(chunk(8, "x\ny\nz\nw\n"), () => false)).toBe(true);
    expect(texts(cache, 8, 11)).toEqual(["x", "y", "z", undefined]);
  });
});

describe("LineCache live chunks", () => {
  it("fills lines by number from firstLine: a final newline ends the last line", () => {
    const cache = new LineCache(10);
    cache.putChunk(chunk(1, "a\nb\n"));
    cache.putChunk(chunk(3, "Password:", "stderr"));
    cache.putChunk(chunk(4, "\n"));
    cache.putChunk(chunk(5, ""));
    expect(texts(cache, 1, 5)).toEqual(["a", "b", "Password:", "", undefined]);
    expect(cache.get(3)?.stream).toBe("stderr");
  });

  it("keeps a line it holds when the same line comes again (duplicates and overlaps change nothing)", () => {
    const cache = new LineCache(10);
    cache.putChunk(chunk(1, "a\nb\n"));
    const held = cache.get(2);
    expect(cache.putChunk(chunk(1, "a\nb\n"))).toBe(false);
    expect(cache.putWindow(1, null, [{ n: 2, stream: "stdout", text: "b" }])).toBe(false);
    expect(cache.get(2)).toBe(held);
  });

  it("puts a chunk that arrives out of order in its place", () => {
    const cache = new LineCache(4);
    cache.putChunk(chunk(5, "e\nf\n"));
    cache.putChunk(chunk(1, "a\nb\nc\n"));
    cache.putChunk(chunk(4, "d\n"));
    expect(texts(cache, 1, 6)).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(cache.missing(1, 6)).toBe(false);
  });
});

describe("LineCache colours", () => {
  it("starts a window in the colour the server says is in force at its first line", () => {
    const cache = new LineCache(10);
    cache.putWindow(
      3,
      `${ESC}[0;32m`,
      lines(3, 2, (n) => (n === 3 ? "still green" : `${ESC}[0mplain`)),
    );
    expect(cache.get(3)?.start).toEqual({ fg: "green", bold: false });
    expect(cache.get(3)?.startKnown).toBe(true);
    expect(cache.get(4)?.start).toEqual({ fg: "green", bold: false });
    expect(cache.get(4)?.end).toBe(PLAIN);
  });

  it("carries colour from the line before into a live chunk", () => {
    const cache = new LineCache(10);
    cache.putChunk(chunk(1, `${ESC}[1;35m[WARNING]: open\n`));
    cache.putChunk(chunk(2, "still magenta\n"));
    expect(cache.get(2)?.start).toEqual({ fg: "magenta", bold: true });
    expect(cache.get(2)?.startKnown).toBe(true);
  });

  it("guesses plain for a chunk after a gap and corrects it when the line before arrives", () => {
    const cache = new LineCache(10);
    cache.putChunk(chunk(2, "b\nc\n"));
    expect(cache.get(2)?.start).toBe(PLAIN);
    expect(cache.get(2)?.startKnown).toBe(false);
    const guessed = cache.get(3);
    cache.putChunk(chunk(1, `${ESC}[31mred without reset\n`));
    expect(cache.get(2)?.start).toEqual({ fg: "red", bold: false });
    expect(cache.get(3)?.start).toEqual({ fg: "red", bold: false });
    expect(cache.get(3)?.startKnown).toBe(true);
    // A new object, so a row memoised on the old one renders again.
    expect(cache.get(3)).not.toBe(guessed);
  });

  it("shares style objects between lines", () => {
    expect(styleFromSgr(`${ESC}[0;33m`)).toBe(styleFromSgr(`${ESC}[33m`));
    expect(styleFromSgr(null)).toBe(PLAIN);
  });
});
