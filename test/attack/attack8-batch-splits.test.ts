/**
 * Attack 8 on issue 34 (held, kept as a probe): 10 shapes of a secret with escapes inside it
 * (JSON `\u001B`, nested `\\u001b`, CRLF, a JSON NUL, ESC then DEL or a non-ASCII byte, a repr
 * `\x1b[1m`, a JSON `\u009b`, an OSC 8 ended by ST, `ESC[0m` between every character) written
 * whole and cut in two at every character (a pause between) through the OutputBatcher: 509
 * cases, 0 shown whole (the pane line by line, the plain-text download, a reader skipping
 * escaped escapes). Run it by moving it to test/unit/ (take one `../` off the imports).
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { parseAnsi, stripAnsi } from "../../server/protocol/ansi";
import { OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";

const secret = "Wr4ngl3r-s3cret-7f2a9c";
const mask = createMasker([secret]);
const INTERVAL = 500;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(1_700_000_000_000);
});
afterEach(() => vi.useRealTimers());

const printed = (writes: string[]) => {
  const out: string[] = [];
  const batcher = new OutputBatcher({
    intervalMs: INTERVAL,
    maxBatchBytes: 64 * 1024,
    maxBuffer: 50 * 1024 * 1024,
    mask,
    emit: (items) => items.forEach((item) => item.kind === "output" && out.push(item.text)),
  });
  batcher.start();
  for (const [i, write] of writes.entries()) {
    if (i > 0) vi.advanceTimersByTime(4 * INTERVAL);
    batcher.write("stdout", write);
  }
  vi.advanceTimersByTime(INTERVAL);
  batcher.stop();
  return out;
};

const shapes: Record<string, string> = {
  upperJson: `["password=Wr\\u001B[01;31m\\u001B[K4\\u001B[m\\u001B[Kngl3r-s3cret-7f2a9c"]\n`,
  nestedJson: `"{\\"p\\": \\"Wr\\\\u001b[01;31m4\\\\u001b[mngl3r-s3cret-7f2a9c\\"}"\n`,
  crlf: `password=Wr\x1b[K4ngl3r-s3cret-7f2a9c\r\nnext\r\n`,
  nulJson: `["Wr4\\u0000ngl3r-s3cret-7f2a9c"]\n`,
  escDel: `password=Wr4\x1b\x7fngl3r-s3cret-7f2a9c\n`,
  escOdd: `password=Wr4\x1b\u00e9ngl3r-s3cret-7f2a9c\n`,
  xRepr: `['Wr4\\x1b[1mngl3r-s3cret-7f2a9c']\n`,
  c1Json: `["Wr4\\u009b1mngl3r-s3cret-7f2a9c"]\n`,
  oscSt: `password=Wr4\x1b]8;;http://x\x1b\\ngl3r-s3cret-7f2a9c\n`,
  manyEsc: `password=${[...secret].join("\x1b[0m")}\n`,
};

it("no shape shows the secret whole, written whole or cut at any character", () => {
  const rendered = (t: string) =>
    parseAnsi(t)
      .segments.map((s) => s.text)
      .join("");
  // A reader skips escaped escapes too.
  const read = (t: string) => stripAnsi(t).replace(/\\{1,4}(?:u00[0-9a-fA-F]{2}|x[0-9a-fA-F]{2})(?:\[[0-9;]*[A-Za-z])?/g, "");
  const leaks: string[] = [];
  for (const [name, text] of Object.entries(shapes)) {
    for (let at = 0; at < text.length; at++) {
      const items = at === 0 ? printed([text]) : printed([text.slice(0, at), text.slice(at)]);
      const joined = items.join("");
      const lines = joined.split("\n").map(rendered).join("\n");
      if (read(joined).includes(secret) || lines.includes(secret) || items.map(stripAnsi).join("").includes(secret))
        leaks.push(`${name}@${at}`);
    }
  }
  expect(leaks).toEqual([]);
});
