import { describe, expect, it } from "vitest";
import { indexOutput } from "../../server/jobs/output-index";

const ESC = "\x1b";

describe("indexOutput", () => {
  it("numbers chunks in order, each starting a new line, across kinds", () => {
    const result = indexOutput({ lines: 10, ansi: null }, [
      { seq: 3, kind: "log", text: "job files ready\n" },
      { seq: 4, kind: "output", stream: "stdout", text: "a\nb\n" },
      { seq: 5, kind: "events", text: null },
      { seq: 6, kind: "output", stream: "stderr", text: "warn" },
      { seq: 7, kind: "output", stream: "stdout", text: "" },
      { seq: 8, kind: "output", stream: "stdout", text: "c\n\nd\n" },
    ]);
    expect([...result.lines.entries()]).toEqual([
      [3, { firstLine: 11, lineCount: 1, ansi: null }],
      [4, { firstLine: 12, lineCount: 2, ansi: null }],
      [6, { firstLine: 14, lineCount: 1, ansi: null }],
      [7, { firstLine: 15, lineCount: 0, ansi: null }],
      [8, { firstLine: 15, lineCount: 3, ansi: null }],
    ]);
    expect(result.end).toEqual({ lines: 17, ansi: null });
  });

  it("carries the colour state over chunks, and runner lines do not change it", () => {
    const result = indexOutput({ lines: 0, ansi: `${ESC}[33m` }, [
      { seq: 1, kind: "output", stream: "stdout", text: `still yellow\n${ESC}[0;32mok: [a]\n` },
      { seq: 2, kind: "log", text: "runner says\n" },
      { seq: 3, kind: "output", stream: "stdout", text: `green${ESC}[1m bold\n` },
      { seq: 4, kind: "output", stream: "stdout", text: `${ESC}[0mplain\n` },
    ]);
    expect(result.lines.get(1)?.ansi).toBe(`${ESC}[33m`);
    expect(result.lines.get(2)?.ansi).toBe(`${ESC}[32m`);
    expect(result.lines.get(3)?.ansi).toBe(`${ESC}[32m`);
    expect(result.lines.get(4)?.ansi).toBe(`${ESC}[1;32m`);
    expect(result.end.ansi).toBeNull();
  });

  it("finds play, task, handler and recap banners with their line numbers, coloured or not", () => {
    const text = [
      "",
      "PLAY [web servers] *********************************************",
      "",
      `${ESC}[0;36mTASK [common : install packages] ***********************${ESC}[0m`,
      "ok: [web1]",
      "TASK [debug] ****",
      "RUNNING HANDLER [restart nginx] *******",
      "TASK [not a banner]",
      "  TASK [indented, not a banner] *****",
      "PLAY RECAP *****************************************************",
      "web1 : ok=2 changed=0",
      "",
    ].join("\n");
    const result = indexOutput({ lines: 100, ansi: null }, [{ seq: 1, kind: "output", stream: "stdout", text }]);
    expect(result.markers).toEqual([
      { line: 102, kind: "play", name: "web servers" },
      { line: 104, kind: "task", name: "common : install packages" },
      { line: 106, kind: "task", name: "debug" },
      { line: 107, kind: "handler", name: "restart nginx" },
      { line: 110, kind: "recap", name: "PLAY RECAP" },
    ]);
  });

  it("takes no banner from stderr or from runner lines", () => {
    const result = indexOutput({ lines: 0, ansi: null }, [
      { seq: 1, kind: "output", stream: "stderr", text: "TASK [x] ****\n" },
      { seq: 2, kind: "log", text: "TASK [y] ****\n" },
    ]);
    expect(result.markers).toEqual([]);
  });
});
