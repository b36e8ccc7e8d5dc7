/**
 * Attack 7 on issue 34: a secret, or its wrapped base64, with escape sequences or control
 * characters in it that render as nothing. The masker matches the stored text; the app itself
 * removes every escape and control character when it shows or serves the output (parseAnsi in
 * the output pane, stripAnsi for `GET /api/jobs/ID/log?ansi=0`, "Download the output as plain
 * text"), so what the user reads is the secret whole.
 *
 * Seen on today's code (`npx tsx test/attack/attack7-escapes.ts`): a raw secret with any one
 * escape inside it (a colour `ESC[1m`, grep's `ESC[m ESC[K`, `ESC[2J`, an OSC title, an OSC 8
 * link, tput's `ESC(B`, the 8-bit CSI) is stored unmasked at every one of its 21 inner
 * positions; wrapped base64 whose lines carry such an escape (grep --color=always, tput sgr0
 * after each line) decodes to the secret in 132/240 cases at 64 columns and 84/240 at 76 (the
 * same lines coloured with `ESC[...m` only: 0). A NUL, DEL or any C0/C1 control character in
 * the secret is removed the same way by the plain-text download.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { stripAnsi } from "../../server/protocol/ansi";
import { OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker, MASK } from "../../server/security/mask";

const secret = "Wr4ngl3r-s3cret-7f2a9c";
const mask = createMasker([secret]);

const inside: Record<string, string> = {
  "a colour (ESC[1m)": "\x1b[1m",
  "grep's end of match (ESC[m ESC[K)": "\x1b[m\x1b[K",
  "erase in line (ESC[K)": "\x1b[K",
  "an OSC window title ended by BEL": "\x1b]0;x\x07",
  "an OSC 8 hyperlink ended by ST": "\x1b]8;;https://example.com\x1b\\",
  "tput sgr0 (ESC(B ESC[m)": "\x1b(B\x1b[m",
  "a NUL": "\x00",
  "a DEL": "\x7f",
};

describe("a secret with an escape inside it, as the app renders the stored output", () => {
  it.each(Object.entries(inside))("%s inside the secret", (_, escape) => {
    const shown: string[] = [];
    for (let at = 1; at < secret.length; at++) {
      const rendered = stripAnsi(mask(`password: ${secret.slice(0, at)}${escape}${secret.slice(at)}\n`));
      if (rendered.includes(secret)) shown.push(`${at}: ${JSON.stringify(rendered)}`);
    }
    expect(shown).toEqual([]);
  });
});

describe("wrapped base64 whose lines carry an escape that is no colour", () => {
  const lineEscapes: Record<string, [string, string]> = {
    "grep --color=always": ["\x1b[01;31m\x1b[K", "\x1b[m\x1b[K"],
    "tput setaf 2 / tput sgr0": ["\x1b[32m", "\x1b(B\x1b[m"],
    "a colour and erase in line": ["\x1b[0;32m", "\x1b[K"],
  };
  it.each(Object.entries(lineEscapes).flatMap(([name, pair]) => [64, 76].map((width) => [name, width, pair] as const)))(
    "%s at %i columns",
    (_, width, [open, close]) => {
      const decoded: number[] = [];
      for (let prefix = 30; prefix < 90; prefix++) {
        const lines = Buffer.from("p".repeat(prefix) + secret)
          .toString("base64")
          .match(new RegExp(`.{1,${width}}`, "g"))!;
        const rendered = stripAnsi(mask(lines.map((line) => `${open}${line}${close}`).join("\n") + "\n"));
        if (Buffer.from(rendered.replace(/\s+/g, ""), "base64").toString("latin1").includes(secret)) decoded.push(prefix);
      }
      expect(decoded).toEqual([]);
    },
  );
});

describe("the 8-bit CSI inside the secret (a terminal reads `\\x9b1m` as one sequence; so does the app)", () => {
  it.each([
    ["\\x9b1m", "\x9b1m"],
    ["\\x9bK", "\x9bK"],
  ])("%s", (_, escape) => {
    const shown: number[] = [];
    for (let at = 1; at < secret.length; at++) {
      const stored = mask(`password: ${secret.slice(0, at)}${escape}${secret.slice(at)}\n`);
      // A terminal's reading of the 8-bit CSI too.
      if (stripAnsi(stored).includes(secret) || stored.replace(/\x9b[0-?]*[ -/]*[@-~]/g, "").includes(secret)) shown.push(at);
    }
    expect(shown).toEqual([]);
  });
});

describe("escapes JSON-escaped between the pieces of a secret (debug of stdout_lines), as a reader skips them", () => {
  // grep --color=always around each digit run of the secret, as the e2e fixture prints it.
  const grepped = secret.replace(/[0-9]+/g, (digits) => `\x1b[01;31m\x1b[K${digits}\x1b[m\x1b[K`);
  const skipEscapes = (text: string) => text.replace(/\\+(?:u001[bB]|x1[bB])\[[0-9;]*[A-Za-z]/g, "");
  it.each([
    ["a JSON list (debug of stdout_lines)", (line: string) => JSON.stringify({ msg: ["port=5432", line] })],
    ["JSON inside a JSON string", (line: string) => JSON.stringify({ msg: JSON.stringify([line]) })],
    ["Python's repr of a list", (line: string) => `['${line.replaceAll("\x1b", "\\x1b")}']`],
  ])("%s", (_, print) => {
    const stored = mask(`ok: [local] => ${print(`password=${grepped}`)}\n`);
    expect(skipEscapes(stored)).not.toContain(secret);
    expect(stored).toContain("password=");
  });
  it("masks the secret from its first character to its last: the text and the escapes around it stay", () => {
    const stored = mask(`${JSON.stringify([`password=${grepped} \x1b[01;31m\x1b[K8080\x1b[m\x1b[K`])}\n`);
    expect(stored).toBe(`["password=${MASK} \\u001b[01;31m\\u001b[K8080\\u001b[m\\u001b[K"]\n`);
  });
});

describe("a secret with escapes in it, cut by the end of a write (the playbook pauses), through the batcher", () => {
  const INTERVAL = 500;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(1_700_000_000_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
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
  it.each([
    ["grep's colours", `password=${secret.replace(/[0-9]+/g, (d) => `\x1b[01;31m\x1b[K${d}\x1b[m\x1b[K`)}\n`],
    ["an OSC title", `password=Wr4ng\x1b]0;title\x07l3r-s3cret-7f2a9c\n`],
    ["the 8-bit CSI", `password=Wr4ng\x9b01;31ml3r-s3cret-7f2a9c\n`],
    ["JSON-escaped colours", `["password=Wr\\u001b[01;31m\\u001b[K4\\u001b[m\\u001b[Kngl3r-s3cret-7f2a9c"]\n`],
  ])("%s, the write cut at every character", (_, text) => {
    const shown: number[] = [];
    for (let at = 1; at < text.length; at++) {
      const items = printed([text.slice(0, at), text.slice(at)]);
      // The pane renders line by line across items; the plain-text download strips item by item.
      const joined = items.join("");
      const read = (t: string) => stripAnsi(t).replace(/\\u001b\[[0-9;]*[A-Za-z]/g, "");
      if (read(joined).includes(secret) || items.map(stripAnsi).join("").includes(secret)) shown.push(at);
    }
    expect(shown).toEqual([]);
  });
});

describe("pending() over escapes", () => {
  it("holds a secret's start with escapes between its characters, and an escape cut short", () => {
    const start = "password: Wr\x1b[01;31m\x1b[K4\x1b[m\x1b[Kngl";
    expect(mask.pending!(start)).toBe(start.length - "password: ".length);
    expect(mask.pending!("done \x1b[01;3")).toBe("\x1b[01;3".length);
    expect(mask.pending!("done \x1b]0;a title")).toBe("\x1b]0;a title".length);
    expect(mask.pending!('["done \\u001b[01;3')).toBe("\\u001b[01;3".length);
    expect(mask.pending!("done \x1b[0m")).toBe(0);
  });
  it("looks at a bounded end of a line of escapes: what it holds stays bounded while the line grows", () => {
    const near = "x W" + "\x1b[0m".repeat(1_000) + "r4";
    expect(mask.pending!(near)).toBe(near.length - 2);
    // Past the bound (the longest form of a secret and 16 KiB of escapes) nothing of it is held.
    const far = "x W" + "\x1b[0m".repeat(250_000) + "r4\x1b[01;3";
    expect(mask.pending!(far)).toBe("\x1b[01;3".length);
  });
});
