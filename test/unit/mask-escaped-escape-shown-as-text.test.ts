/**
 * Attack 8 on issue 34: the masker's second view (server/security/mask-rendered.ts) decodes
 * JSON/repr-escaped control characters (`\u001b`, `\x1b`, `\\u001b`, `\u009b`) and then hides
 * the escape sequence the decoded character starts, as if it were a real one. The app decodes
 * nothing: it shows `\u001b` as six characters, and the characters after it as text. So when the
 * text just before a secret reads as an escaped ESC or CSI (`\u001b`, `\u001b[`, `\u001b(`,
 * `\u001b]0;`, `\u009b`) and the secret has a real escape inside it (grep's colours, `ESC[K`, a
 * NUL), the view hides the secret's first characters (the final byte of `ESC W`, `ESC [ W`,
 * the OSC up to the real ESC), the secret is found in neither the text nor the view, and the app
 * shows `password: \u001bWr4ngl3r-s3cret-7f2a9c` whole.
 *
 * Fixed: the masker reads the raw view too (the text as the app shows it, nothing decoded) and
 * masks a secret found in either view (mask-rendered.ts).
 *
 * Seen before the fix: 756 of 924 cases shown whole (11 prefixes x 4 inner escapes x 21 inner
 * positions): every position for each of the 9 prefixes below; `\u0007` and a terminated OSC
 * (`\u001b]0;t\u0007`) before the secret held.
 */
import { describe, expect, it } from "vitest";
import { parseAnsi, stripAnsi } from "../../server/protocol/ansi";
import { createMasker } from "../../server/security/mask";

const secret = "Wr4ngl3r-s3cret-7f2a9c";
const mask = createMasker([secret]);
const shown = (text: string) =>
  parseAnsi(text)
    .segments.map((segment) => segment.text)
    .join("");

const before = ["\\u001b", "\\x1b", "\\\\u001b", "\\u001B", "\\u001b[", "\\u001b[1;", "\\u001b]0;", "\\u001b(", "\\u009b"];
const inside = { "ESC[1m": "\x1b[1m", "ESC[K": "\x1b[K", "grep's ESC[m ESC[K": "\x1b[m\x1b[K", NUL: "\x00" };

describe("an escaped escape just before a secret with a real escape inside it", () => {
  it.each(before.flatMap((prefix) => Object.entries(inside).map(([name, escape]) => [prefix, name, escape] as const)))(
    "%s before, %s inside",
    (prefix, _, escape) => {
      const whole: string[] = [];
      for (let at = 1; at < secret.length; at++) {
        const stored = mask(`password: ${prefix}${secret.slice(0, at)}${escape}${secret.slice(at)}\n`);
        if (shown(stored).includes(secret) || stripAnsi(stored).includes(secret)) whole.push(`${at}: ${JSON.stringify(stored)}`);
      }
      expect(whole).toEqual([]);
    },
  );
});
