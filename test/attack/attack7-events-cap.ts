/**
 * Attack 7 on issue 34: the events line cap (EVENTS_LINE_MAX) and the output around it. A
 * secret in the events line dropped, in the line after it, split by the reads at every cut near
 * the cap; a secret on stdout split in two writes with the dropped line (and its runner line)
 * between the halves, with and without a flush (a pause) between them; a plain form and its
 * wrapped base64. Prints the count of runs whose emitted output or events hold the secret.
 * Usage: npx tsx test/attack/attack7-events-cap.ts
 */
import { EVENTS_LINE_MAX, OutputBatcher } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";

const secret = "Wr4ngl3r-s3cret-7f2a9c";
const b64 = (s: string) => Buffer.from(s).toString("base64");
function run(steps: (b: OutputBatcher) => void): string {
  const emitted: UnnumberedItem[][] = [];
  const b = new OutputBatcher({
    intervalMs: 500,
    maxBatchBytes: 65536,
    maxBuffer: 50e6,
    mask: createMasker([secret]),
    emit: (items) => emitted.push(items),
  });
  steps(b);
  b.flush(true);
  b.stop();
  return JSON.stringify(emitted);
}
const leaks = (text: string) => text.includes(secret);
let total = 0;
let leaked = 0;
const check = (name: string, text: string) => {
  total++;
  if (leaks(text)) {
    leaked++;
    console.log(`LEAK ${name}`);
  }
};
const event = (s: string) => JSON.stringify({ event: "task_start", task: { name: `pw ${s}` } });
// 1. The over-long line holds the secret at its start, around the cap, at its end; read in 64 KiB pieces or cut at the secret.
for (const where of [0, EVENTS_LINE_MAX - 30, EVENTS_LINE_MAX - 5, EVENTS_LINE_MAX + 3, EVENTS_LINE_MAX + 100]) {
  for (const cut of [1, 7, 11, 21]) {
    const line = "a".repeat(where) + secret + "b".repeat(50) + "\n" + event(secret) + "\n";
    check(
      `long line, secret at ${where}, read cut ${cut} into it`,
      run((b) => {
        const at = where + cut;
        for (let i = 0; i < at; i += 65536) b.writeEvents(line.slice(i, Math.min(i + 65536, at)));
        b.writeEvents(line.slice(at));
      }),
    );
  }
}
// 2. A line of exactly EVENTS_LINE_MAX characters (kept), the secret at its end as JSON.
for (const extra of [-1, 0, 1]) {
  const body = JSON.stringify({ event: "task_start", task: { name: secret } });
  const pad = EVENTS_LINE_MAX + extra - body.length - 8;
  const line = JSON.stringify({ x: "p".repeat(pad), event: "task_start", task: { name: secret } });
  check(
    `line of ${line.length} (cap ${extra >= 0 ? "+" : ""}${extra})`,
    run((b) => b.writeEvents(line + "\n")),
  );
}
// 3. A secret (and its wrapped base64) split on stdout, the dropped line between the halves, with and without a pause.
const wrapped = (b64("p".repeat(40) + secret).match(/.{1,76}/g) ?? []).join("\n") + "\n";
for (const text of [`password: ${secret}\n`, wrapped]) {
  for (let cut = 1; cut < text.length - 1; cut++) {
    for (const pause of [false, true]) {
      const out = run((b) => {
        b.write("stdout", text.slice(0, cut));
        if (pause) b.flush(false);
        b.writeEvents("z".repeat(EVENTS_LINE_MAX + 10));
        b.writeEvents("\n");
        if (pause) b.flush(false);
        b.write("stdout", text.slice(cut));
      });
      const plain = JSON.parse(out)
        .flat()
        .filter((item: UnnumberedItem) => item.kind === "output")
        .map((item: { text: string }) => item.text)
        .join("");
      total++;
      const decoded = Buffer.from(plain.replace(/[^A-Za-z0-9+/=]/g, ""), "base64").toString("latin1");
      if (plain.includes(secret) || (text === wrapped && decoded.includes(secret))) {
        leaked++;
        if (leaked < 20) console.log(`LEAK split at ${cut}, pause ${pause}: ${JSON.stringify(plain).slice(0, 200)}`);
      }
    }
  }
}
console.log(`${total} runs, ${leaked} leaked`);
