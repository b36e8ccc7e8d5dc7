import { describe, expect, it } from "vitest";
import { chunkLines, countChunkLines } from "../../server/protocol/output-lines";

describe("the line rule of job output", () => {
  it.each([
    ["", []],
    ["a\n", ["a"]],
    ["a", ["a"]],
    ["a\nb\n", ["a", "b"]],
    ["a\nb", ["a", "b"]],
    ["\n", [""]],
    ["\n\n", ["", ""]],
    ["a\n\nb\n", ["a", "", "b"]],
  ])("%j holds %j", (text, lines) => {
    expect(chunkLines(text)).toEqual(lines);
    expect(countChunkLines(text)).toBe(lines.length);
  });
});
