/**
 * Attack 10 on issue 34, a probe (held): mask() after the both-ways reading of an escape cut at
 * the end (commit cefd74a). 200,000 texts: one of four secrets with one to three fragments of
 * escapes (cut CSI, 8-bit CSI, open OSC, lone ESC, BEL, CR, C1) at random places, a random
 * prefix (an open OSC, a cut CSI, a colour) and end; what the app shows of the masked text
 * (stripAnsiByLine, parseAnsi line by line) never holds the secret whole. Run it by moving it to
 * test/unit/ (the imports stay).
 */
import { expect, it } from "vitest";
import { createMasker } from "../../server/security/mask";
import { stripAnsiByLine, stripAnsi, parseAnsi } from "../../server/protocol/ansi";
it("fuzz", () => {
  const secrets = ["Summer2024!", "hunter2-secret-1234", "p@ss w0rd 42;", "Wr4ngl3r-s3cret-7f2a9/"];
  const m = createMasker(secrets);
  const frags = [
    "\x1b",
    "\x1b[",
    "\x1b[2",
    "\x1b[;",
    "\x9b",
    "\x9b1",
    "\x1b]",
    "\x1b]x\x07",
    "\x1b]x",
    "\x07",
    "\x1b(",
    "\r",
    "\x1b[0m",
    "\x1b\\",
    "\x1b[1;",
    "\x1b[ ",
    "\x1b!",
    "\x1b]\n",
    "\x1b[0",
    "\x1b[?",
    "\x1b[>",
    "\x1b[!p",
    "\x85",
    "\x9c",
  ];
  const pre = ["", "a", "x\n", "\x1b]", "\x1b[", "\x1b]y\n", "\x1b", "\x1b[0m"];
  let seed = 12345;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  let cases = 0;
  const leaks: string[] = [];
  for (let i = 0; i < 200000; i++) {
    const s = secrets[rnd(secrets.length)]!;
    let t = s;
    const k = 1 + rnd(3);
    for (let j = 0; j < k; j++) {
      const at = rnd(t.length + 1);
      t = t.slice(0, at) + frags[rnd(frags.length)]! + t.slice(at);
    }
    t = pre[rnd(pre.length)]! + t + (rnd(2) ? "" : ["\n", "z", "\x1b", "\x07"][rnd(4)]!);
    cases++;
    const out = m(t);
    const shownLines = out
      .split("\n")
      .map((l) =>
        parseAnsi(l)
          .segments.map((x) => x.text)
          .join(""),
      )
      .join("\n");
    const shown = [stripAnsiByLine(out), stripAnsi(out), shownLines];
    if (shown.some((v, idx) => idx !== 1 && v.includes(s))) leaks.push(JSON.stringify(t) + " -> " + JSON.stringify(out));
  }
  console.log("cases", cases, "leaks", leaks.length, leaks.slice(0, 15).join("\n"));
  expect(leaks).toEqual([]);
}, 600_000);
