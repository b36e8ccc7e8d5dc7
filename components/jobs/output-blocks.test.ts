import { describe, expect, it } from "vitest";
import type { OutputChunk } from "@/components/api/types";
import { chunkToBlock } from "./output-blocks";

function chunk(seq: number, text = `line ${seq}\n`, stream = "stdout"): OutputChunk {
  return { seq, stream, text, firstLine: seq, lineCount: 1 };
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
