import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
let now = 1_700_000_000_000;
Date.now = () => now;
const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
const b64 = Buffer.from("x".repeat(45) + secret + "/" + "z".repeat(80)).toString("base64");
const L = b64.match(/.{1,64}/g)!;
const C = "\x1b[0;32m",
  R = "\x1b[0m";
const text = `${C}token: ${L.join(`${R}\n${C}`)}${R}\n`;
for (const at of [79, 84]) {
  const out: string[] = [];
  const b = new OutputBatcher({
    intervalMs: 500,
    maxBatchBytes: 65536,
    maxBuffer: 50e6,
    mask: createMasker([secret]),
    emit: (i) => i.forEach((x) => x.kind === "output" && out.push(x.text)),
  });
  b.write("stdout", text.slice(0, at));
  for (let k = 0; k < 4; k++) {
    now += 500;
    b.flush(false);
  }
  b.write("stdout", text.slice(at));
  b.stop();
  console.log(
    at,
    JSON.stringify(JSON.stringify(text.slice(0, at)).slice(-20)),
    out.map((o) => JSON.stringify(o)),
  );
}
