// Random texts built from base64 runs and break-like tokens: worst time of wrappedBase64Start,
// pending() and the masker on each (attack 4). Usage: attack4-fuzz-tail.ts [iterations] [pieces]
import { createMasker, wrappedBase64Start } from "../../server/security/mask";
const iterations = Number(process.argv[2] ?? 300);
const pieces = Number(process.argv[3] ?? 400);
const secrets = ["Zq8vT3nW6pK1rY5mC9xB2dF7hJ4gL0sA", "p a s s\nw o r d", "q\"\\uo'te\\\\s"];
const m = createMasker(secrets);
const b64 = Buffer.from("xx" + secrets[0] + "yy").toString("base64");
const tokens = [
  "A".repeat(64),
  "A".repeat(76),
  b64.slice(0, 40),
  b64.slice(10),
  "\n",
  "\r\n",
  "\\n",
  "\\\\n",
  "\\r\\n",
  '",\n  "',
  "', '",
  ", ",
  ",\n ",
  "\x1b[0;32m",
  "\x1b[0m",
  "  ",
  "- ",
  "\\",
  '"',
  " ",
  "\n\n",
  "=",
  "%2B",
  "\\u00",
  "A",
];
let worst = [0, 0, 0];
let seed = 7;
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
for (let it = 0; it < iterations; it++) {
  let text = "";
  for (let p = 0; p < pieces; p++) text += tokens[rnd(tokens.length)];
  let t = performance.now();
  wrappedBase64Start(text);
  const a = performance.now() - t;
  t = performance.now();
  m.pending!(text);
  const b = performance.now() - t;
  t = performance.now();
  m(text);
  const c = performance.now() - t;
  if (a > worst[0]! || b > worst[1]! || c > worst[2]!) {
    worst = [Math.max(a, worst[0]!), Math.max(b, worst[1]!), Math.max(c, worst[2]!)];
    console.log(it, text.length, worst.map((x) => x.toFixed(1)).join(" / "), "ms (start / pending / mask)");
  }
}
