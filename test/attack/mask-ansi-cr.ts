/**
 * Attack 3: ANSI colours and carriage returns around and inside a secret's forms.
 * Prints the cases that leak an 8-character window of the secret's base64 (or the secret).
 * Run: npx tsx test/attack/mask-ansi-cr.ts
 */
import { createMasker } from "../../server/security/mask";

const G = "\x1b[0;32m";
const R = "\x1b[0m";
const secrets = ["monitoring-token-8d7f6e5a4b3c2d1e", 'Tq"8\\vé-Jz4/mR+w', "pass\rword-123456", "a\tb\x1bc-secret-99"];
let leaks = 0;
const byLayout: Record<string, number> = {};
let cases = 0;
for (const secret of secrets) {
  const mask = createMasker([secret]);
  const windows: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const bytes = Buffer.from(secret).subarray(skip);
    const middle = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
    for (let at = 0; at + 8 <= middle.length; at += 2) windows.push(middle.slice(at, at + 8));
  }
  for (let pre = 30; pre <= 60; pre++) {
    const b64 = Buffer.from("x".repeat(pre) + secret + "tail").toString("base64");
    for (const width of [64, 76]) {
      const lines = b64.match(new RegExp(`.{1,${width}}`, "g"))!;
      const layouts: Record<string, string> = {
        coloured: lines.map((l) => `${G}${l}${R}`).join("\n"),
        crlf: lines.join("\r\n"),
        colouredCrlf: lines.map((l) => `${G}${l}${R}`).join("\r\n"),
        colouredJsonLines: `${G}    "stdout": "${lines.join("\\n")}"${R}`,
        colouredYamlBlock: lines.map((l) => `${G}      ${l}${R}`).join("\n"),
      };
      for (const [name, text] of Object.entries(layouts)) {
        cases++;
        // eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
        const out = mask(`${text}\n`).replace(/\x1b\[[0-9;]*m|\r|\n|\\n| /g, "");
        const leaked = windows.filter((w) => out.includes(w));
        if (leaked.length > 0) {
          leaks++;
          byLayout[name] = (byLayout[name] ?? 0) + 1;
          if (leaks <= 4) console.log("LEAK", JSON.stringify(secret), pre, width, name, leaked.slice(0, 2));
        }
      }
    }
  }
  // raw, with colours around, and JSON-escaped with \r
  for (const text of [`${G}${secret}${R}`, JSON.stringify(secret), JSON.stringify(JSON.stringify(secret))]) {
    cases++;
    if (mask(text).includes(secret.slice(4, 12)) || mask(text).includes(JSON.stringify(secret).slice(5, 12))) {
      leaks++;
      console.log("LEAK raw", JSON.stringify(secret), JSON.stringify(text));
    }
  }
}
console.log(`${cases} cases, ${leaks} leak`, byLayout);
