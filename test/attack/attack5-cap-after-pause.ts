/**
 * Attack 5: the output cap (PROCESS_MAX_BUFFER) after a pause. The first part of a line of a
 * secret's wrapped base64 is written and held (a pause: flushes go by), then the next write
 * crosses the cap. Does what was held go out at the end, the secret's base64 in it?
 * Usage: npx tsx test/attack/attack5-cap-after-pause.ts
 */
import { OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";

const SECRET = "Xk9#pQ2!vB7$wL4mRt8Zq";
function windows(secret: string): string[] {
  const w: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const bytes = Buffer.from(secret).subarray(skip);
    const middle = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
    for (let at = 0; at + 8 <= middle.length; at += 2) w.push(middle.slice(at, at + 8));
  }
  return w;
}
const W = windows(SECRET);
let now = 1_700_000_000_000;
Date.now = () => now;
const results: Record<string, [number, number]> = {};
for (const width of [64, 76])
  for (const shape of ["raw", "label"])
    for (let prefix = 0; prefix < 60; prefix += 1)
      for (const pause of [false, true]) {
        const b64 = Buffer.from("P".repeat(prefix) + SECRET + "S".repeat(90)).toString("base64");
        const lines = b64.match(new RegExp(`.{1,${width}}`, "g"))!;
        const text = `ok: [localhost]\n${shape === "label" ? "token: " : ""}${lines.join("\n")}\ndone\n`;
        const start = text.indexOf("\n") + 1;
        const key = `${width} ${shape} ${pause ? "pause then cap" : "cap, no pause"}`;
        results[key] ??= [0, 0];
        // The cut after the first write anywhere in the first line of base64; the cap 1-8 bytes later.
        for (let cut = start + 1; cut < text.indexOf("\n", start); cut++)
          for (const extra of [1, 8]) {
            const out: string[] = [];
            const b = new OutputBatcher({
              intervalMs: 500,
              maxBatchBytes: 65536,
              maxBuffer: cut + extra,
              mask: createMasker([SECRET]),
              emit: (i) => i.forEach((x) => x.kind === "output" && out.push(x.text)),
            });
            b.write("stdout", text.slice(0, cut));
            if (pause)
              for (let k = 0; k < 3; k++) {
                now += 600;
                b.flush(false);
              }
            b.write("stdout", text.slice(cut));
            b.stop();
            const o = out.join("").replace(/\n/g, "");
            results[key]![W.some((w) => o.includes(w)) ? 1 : 0]++;
          }
      }
for (const [k, [held, leaked]] of Object.entries(results)) console.log(k.padEnd(32), `held ${held}, leaked ${leaked}`);
