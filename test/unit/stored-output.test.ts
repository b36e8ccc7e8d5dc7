import { describe, expect, it } from "vitest";
import { storedOutput } from "../../server/jobs/output";

describe("storedOutput: a batch just stored, as followers get it", () => {
  it("gives the seq range and the output chunks with their lines", () => {
    expect(
      storedOutput([
        { seq: 8, kind: "events", events: [], ts: 1 },
        { seq: 6, kind: "log", text: "job files ready\n", ts: 1, firstLine: 10, lineCount: 1 },
        { seq: 7, kind: "output", stream: "stdout", text: "a\nb\n", ts: 1, firstLine: 11, lineCount: 2 },
      ]),
    ).toEqual({
      fromSeq: 6,
      toSeq: 8,
      chunks: [
        { seq: 6, stream: "rte", text: "job files ready\n", firstLine: 10, lineCount: 1 },
        { seq: 7, stream: "stdout", text: "a\nb\n", firstLine: 11, lineCount: 2 },
      ],
    });
  });

  it("is null for nothing, or for seqs with a gap (part of a resend was stored already): followers then read", () => {
    expect(storedOutput([])).toBeNull();
    expect(
      storedOutput([
        { seq: 3, kind: "output", stream: "stdout", text: "a\n", ts: 1, firstLine: 1, lineCount: 1 },
        { seq: 5, kind: "output", stream: "stdout", text: "b\n", ts: 1, firstLine: 2, lineCount: 1 },
      ]),
    ).toBeNull();
  });
});
