// Timing probes for the masker (attack 4): hostile texts against secrets with whitespace,
// backslashes, quotes; pending() on long base64-like tails; wrappedBase64Start.
import { createMasker, wrappedBase64Start } from "../../server/security/mask";
const cases: [string, string[], string][] = [];
const N = Number(process.argv[2] ?? 2000);
const add = (name: string, secrets: string[], text: string) => cases.push([name, secrets, text]);
add("spaces secret vs spaces+Z", [" ".repeat(40) + "Q"], " ".repeat(N) + "Z");
add("spaces secret vs \\n\\ and spaces", ["a" + " ".repeat(20) + "b"], "a" + "\\\n    \\ ".repeat(N / 10));
add("fold pieces", ["x \n y \n z"], ("x" + "\\\\\\n" + " ".repeat(60) + "\\\\ ").repeat(N / 20) + "!");
add("backslash run + spaces", ["q\\\\ \\\\ w"], "q" + "\\\\\\\\ ".repeat(N / 5) + "!");
add("escaped newlines", ["k\n\n\n\n\nm"], "k" + "\\\\n".repeat(N) + "!");
add("escaped nl mix", ["k\n \n \n \nm"], "k" + "\\n \\\\n  \\\\\\\\n ".repeat(N / 10) + "!");
add("base64-like line", ["SecretValue123456"], "U2VjcmV0VmFsdWUxMjM0NTY".repeat(N / 20));
add("long b64 no break", ["S3cr3tP4ssw0rd!!"], "A".repeat(N * 5));
add("b64 lines 64 + break", ["S3cr3tP4ssw0rd!!"], ("A".repeat(64) + "\n").repeat(N / 50) + "A".repeat(63));
add("list sep", ["S3cr3tP4ssw0rd!!"], ('"' + "A".repeat(64) + '", ').repeat(N / 50));
add(
  "many ws secrets",
  Array.from({ length: 40 }, (_, i) => `p${i} \n q${i}\r\n r${i}  s`),
  " \n \r\n  \\n ".repeat(N / 5) + "Z",
);
for (const [name, secrets, text] of cases) {
  const m = createMasker(secrets);
  let t = performance.now();
  m(text);
  const tm = performance.now() - t;
  t = performance.now();
  m.pending?.(text);
  const tp = performance.now() - t;
  t = performance.now();
  wrappedBase64Start(text);
  const tw = performance.now() - t;
  console.log(`${name.padEnd(34)} len=${text.length} mask=${tm.toFixed(1)}ms pending=${tp.toFixed(1)}ms wrappedStart=${tw.toFixed(1)}ms`);
}
