import { describe, expect, it } from "vitest";
import type { OutputChunk } from "@/components/api/types";
import { chunkToBlock, mergeChunks, type OutputBlock } from "./output-blocks";

function chunk(seq: number, text = `line ${seq}\n`, stream = "stdout"): OutputChunk {
  return { seq, stream, text, firstLine: seq, lineCount: 1 };
}

function seqs(blocks: OutputBlock[]): number[] {
  return blocks.map((b) => b.seq);
}

function text(blocks: OutputBlock[]): string[] {
  return blocks.flatMap((b) => b.lines);
}

describe("chunkToBlock", () => {
  it("splits a batch of whole lines without a trailing empty line", () => {
    expect(chunkToBlock(chunk(1, "a\nb\n")).lines).toEqual(["a", "b"]);
  });

  it("gives a chunk without a final newline a line of its own", () => {
    expect(chunkToBlock(chunk(1, "Password:")).lines).toEqual(["Password:"]);
  });

  it("keeps blank lines inside a chunk and yields no line for an empty chunk", () => {
    expect(chunkToBlock(chunk(1, "a\n\nb\n")).lines).toEqual(["a", "", "b"]);
    expect(chunkToBlock(chunk(1, "\n")).lines).toEqual([""]);
    expect(chunkToBlock(chunk(1, "")).lines).toEqual([]);
  });

  it("keeps seq and stream", () => {
    expect(chunkToBlock(chunk(7, "x\n", "rte"))).toEqual({ seq: 7, stream: "rte", lines: ["x"] });
  });
});

describe("mergeChunks", () => {
  it("appends newer chunks in seq order", () => {
    const first = mergeChunks([], [chunk(1), chunk(2)]);
    const next = mergeChunks(first, [chunk(3)]);
    expect(seqs(next)).toEqual([1, 2, 3]);
    expect(text(next)).toEqual(["line 1", "line 2", "line 3"]);
  });

  it("sorts a batch that arrives out of order", () => {
    expect(seqs(mergeChunks([], [chunk(3), chunk(1), chunk(2)]))).toEqual([1, 2, 3]);
  });

  it("drops chunks already shown, as the HTTP page, the socket catch-up and live delivery overlap", () => {
    const shown = mergeChunks([], [chunk(1), chunk(2), chunk(3)]);
    const merged = mergeChunks(shown, [chunk(2, "changed text\n"), chunk(3), chunk(4)]);
    expect(seqs(merged)).toEqual([1, 2, 3, 4]);
    // The first delivery of a seq wins; a repeat never replaces or doubles it.
    expect(text(merged)).toEqual(["line 1", "line 2", "line 3", "line 4"]);
  });

  it("drops duplicates within one batch", () => {
    const merged = mergeChunks([], [chunk(5), chunk(5, "again\n"), chunk(6)]);
    expect(seqs(merged)).toEqual([5, 6]);
    expect(text(merged)).toEqual(["line 5", "line 6"]);
  });

  it("returns the same array when nothing is new, so React can skip the render", () => {
    const shown = mergeChunks([], [chunk(1), chunk(2)]);
    expect(mergeChunks(shown, [chunk(1), chunk(2)])).toBe(shown);
    expect(mergeChunks(shown, [])).toBe(shown);
  });

  it("puts an older unseen chunk in its place when a live one overtook it", () => {
    // Live delivery of 5 before the catch-up of 3 and 4.
    const live = mergeChunks(mergeChunks([], [chunk(1), chunk(2)]), [chunk(5)]);
    const caughtUp = mergeChunks(live, [chunk(3), chunk(4), chunk(5)]);
    expect(seqs(caughtUp)).toEqual([1, 2, 3, 4, 5]);
    expect(text(caughtUp)).toEqual(["line 1", "line 2", "line 3", "line 4", "line 5"]);
  });

  it("fills a gap in the middle and keeps seqs that are not consecutive", () => {
    const shown = mergeChunks([], [chunk(10), chunk(30)]);
    expect(seqs(mergeChunks(shown, [chunk(20), chunk(40)]))).toEqual([10, 20, 30, 40]);
  });

  it("does not change the blocks it was given", () => {
    const shown = mergeChunks([], [chunk(1), chunk(3)]);
    const before = [...shown];
    mergeChunks(shown, [chunk(2)]);
    mergeChunks(shown, [chunk(4)]);
    expect(shown).toEqual(before);
  });

  it("finds duplicates among many blocks (binary search over seq)", () => {
    const many = mergeChunks(
      [],
      Array.from({ length: 1000 }, (_, i) => chunk(i * 2 + 1)),
    );
    const again = mergeChunks(many, [chunk(1), chunk(999), chunk(1999), chunk(2000)]);
    expect(again.length).toBe(1001);
    expect(again[again.length - 1]!.seq).toBe(2000);
    expect(seqs(again).every((seq, i, all) => i === 0 || all[i - 1]! < seq)).toBe(true);
  });
});
