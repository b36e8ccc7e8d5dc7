/**
 * Attack 6 on issue 34: the cost of Masker.pending (asked on every output read for the held
 * tail) with one long secret (a 4,096-character key) over a tail of colour escapes with line
 * breaks in it, the shape that sends the tail through BASE64_BREAK_CUT_END and the joined-prefix
 * walk. Usage: npx tsx test/attack/attack6-pending-cost.ts [secretLength,...] [shape]
 * shapes: esc-nl (`ESC[0m\n` repeated), esc (`ESC[0m` repeated then `\n`), esc-cr, comma.
 */
import { randomBytes } from "node:crypto";
import { createMasker } from "../../server/security/mask";

const lengths = (process.argv[2] ?? "256,1024,4096").split(",").map(Number);
const shapes = process.argv[3] ? [process.argv[3]] : ["esc-nl", "esc", "esc-cr", "comma", "esc-tail", "nl-esc-x", "comma-esc-x"];
for (const length of lengths) {
  const secret = randomBytes(length).toString("base64url").slice(0, length);
  let t = Date.now();
  const mask = createMasker([secret]);
  const build = Date.now() - t;
  for (const shape of shapes) {
    const unit = shape === "esc-nl" ? "\x1b[0m\n" : shape === "esc-cr" ? "\x1b[0m\r" : shape === "comma" ? "\x1b[0m," : "\x1b[0m";
    const lead = shape === "nl-esc-x" ? "\n" : shape === "comma-esc-x" ? "," : "";
    const text =
      lead +
      unit.repeat(Math.ceil((length * Number(process.env.TIMES ?? 64)) / unit.length)) +
      (shape === "esc" ? "\n" : shape === "esc-tail" ? "\n\x1b[" : shape.endsWith("-x") ? "x" : "");
    mask.pending?.("warm");
    t = Date.now();
    const held = mask.pending?.(text) ?? 0;
    const pendingMs = Date.now() - t;
    t = Date.now();
    mask(text);
    console.log(
      `secret ${length}: build ${build} ms; ${shape} ${text.length} chars: pending ${pendingMs} ms (held ${held}), mask ${Date.now() - t} ms`,
    );
  }
}
