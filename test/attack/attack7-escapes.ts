/**
 * Attack 7 on issue 34: a secret and its wrapped base64 with terminal escapes other than SGR
 * colours (`ESC[...m`) in or around them: what a terminal renders (escapes removed) against what
 * the masker stores. Usage: npx tsx test/attack/attack7-escapes.ts
 */
import { createMasker } from "../../server/security/mask";

const secret = "Wr4ngl3r-s3cret-7f2a9c";
const mask = createMasker([secret]);
/** What a terminal shows: every escape sequence removed (CSI 7/8-bit, OSC to BEL or ST, ESC + one char). */
const render = (text: string) =>
  // eslint-disable-next-line no-control-regex
  text.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\-_]/g, "");

const escapes: Record<string, string> = {
  sgr: "\x1b[1m",
  sgrReset: "\x1b[0m",
  el: "\x1b[K",
  grepEnd: "\x1b[m\x1b[K",
  grepStart: "\x1b[01;31m\x1b[K",
  cursorRight0: "\x1b[0C",
  clear: "\x1b[2J",
  oscTitleBel: "\x1b]0;title\x07",
  oscTitleSt: "\x1b]0;title\x1b\\",
  osc8: "\x1b]8;;https://example.com\x1b\\",
  c1Sgr: "\x9b1m",
  c1El: "\x9bK",
  charset: "\x1b(B",
  tputSgr0: "\x1b(B\x1b[m",
};

let leaks = 0;
let held = 0;
// 1. raw secret with one escape inside (every position) or around it.
for (const [name, esc] of Object.entries(escapes)) {
  let inside = 0;
  for (let at = 1; at < secret.length; at++) {
    const text = `password: ${secret.slice(0, at)}${esc}${secret.slice(at)}\n`;
    if (render(mask(text)).includes(secret)) inside++;
  }
  const around = render(mask(`password: ${esc}${secret}${esc}\n`)).includes(secret);
  console.log(`raw, ${name}: inside ${inside}/${secret.length - 1} render the secret; around: ${around ? "LEAK" : "masked"}`);
  leaks += inside + (around ? 1 : 0);
  held += secret.length - 1 - inside + (around ? 0 : 1);
}

// 2. wrapped base64 (64/76 columns) whose lines are wrapped in escapes, as tput / grep / ls colour a line.
const b64 = (s: string) => Buffer.from(s).toString("base64");
for (const width of [64, 76]) {
  for (const [name, esc] of Object.entries(escapes)) {
    let count = 0;
    let total = 0;
    for (let prefix = 30; prefix < 30 + 60; prefix++) {
      const encoded = b64("p".repeat(prefix) + secret);
      const lines = encoded.match(new RegExp(`.{1,${width}}`, "g"))!;
      const shapes = [
        lines.map((line) => `${esc}${line}\x1b[0m`).join("\n"),
        lines.map((line) => `\x1b[0;32m${line}${esc}`).join("\n"),
        lines.map((line) => `${line}${esc}`).join("\n"),
        lines.map((line) => `${esc}${line}`).join("\n"),
      ];
      for (const shape of shapes) {
        total++;
        const out = render(mask(`${shape}\n`));
        const decoded = Buffer.from(out.replace(/\s+/g, ""), "base64").toString("latin1");
        if (decoded.includes(secret)) count++;
      }
    }
    console.log(`wrapped ${width}, ${name}: ${count}/${total} decode to the secret after rendering`);
    leaks += count;
    held += total - count;
  }
}
console.log(`total: ${leaks} leak, ${held} held`);
