import { describe, expect, it } from "vitest";
import { parseAnsi } from "./ansi";
import { findMatches, highlightSegments } from "./highlight";

const ESC = "\x1b";

describe("findMatches", () => {
  it("finds every occurrence, case-insensitively, without overlaps", () => {
    expect(findMatches("Error: error ERROR", "error")).toEqual([
      [0, 5],
      [7, 12],
      [13, 18],
    ]);
    expect(findMatches("aaaa", "aa")).toEqual([
      [0, 2],
      [2, 4],
    ]);
  });

  it("takes the query literally", () => {
    expect(findMatches("a.b a+b (x)", "a+b")).toEqual([[4, 7]]);
    expect(findMatches("[WARNING]: x", "[warning]")).toEqual([[0, 9]]);
    expect(findMatches("abc", "")).toEqual([]);
  });
});

describe("highlightSegments", () => {
  it("marks the match inside one colour run and keeps the rest", () => {
    const { segments } = parseAnsi(`${ESC}[0;32mok: [web1]${ESC}[0m done`);
    expect(highlightSegments(segments, "WEB1")).toEqual([
      { text: "ok: [", fg: "green", bold: false, match: false },
      { text: "web1", fg: "green", bold: false, match: true },
      { text: "]", fg: "green", bold: false, match: false },
      { text: " done", fg: null, bold: false, match: false },
    ]);
  });

  it("cuts a match that spans two colours into two marked pieces, each in its colour", () => {
    const { segments } = parseAnsi(`${ESC}[31mfat${ESC}[1;33mal${ESC}[0m: x`);
    expect(highlightSegments(segments, "fatal")).toEqual([
      { text: "fat", fg: "red", bold: false, match: true },
      { text: "al", fg: "yellow", bold: true, match: true },
      { text: ": x", fg: null, bold: false, match: false },
    ]);
  });

  it("searches the text without colour codes: codes between the letters do not hide a match", () => {
    const { segments } = parseAnsi(`ch${ESC}[33ma${ESC}[0mnged`);
    const pieces = highlightSegments(segments, "changed");
    expect(pieces.every((p) => p.match)).toBe(true);
    expect(pieces.map((p) => p.text).join("")).toBe("changed");
  });

  it("leaves a line without the query as it was, and the text is the same once joined", () => {
    const { segments } = parseAnsi(`${ESC}[36mskipping: [db]${ESC}[0m`);
    expect(highlightSegments(segments, "fatal")).toEqual([{ text: "skipping: [db]", fg: "cyan", bold: false, match: false }]);
    const many = parseAnsi(`a${ESC}[32mb${ESC}[0mab${ESC}[31mab`).segments;
    expect(
      highlightSegments(many, "ab")
        .map((p) => p.text)
        .join(""),
    ).toBe("ababab");
    expect(highlightSegments(many, "ab").filter((p) => p.match).length).toBe(4);
  });
});
