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
import { describe, expect, it } from "vitest";
import { stripAnsi } from "../../server/protocol/ansi";
import { createMasker } from "../../server/security/mask";

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
