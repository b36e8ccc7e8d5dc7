/**
 * Fifth attack on issue 34 (the open note of attack 4: "an events line with no line break grows
 * eventsPartial without a cap"): still true, and it is quadratic. At every read of the events
 * pipe (64 KiB) the batcher splits eventsPartial + chunk whole; a line with no break is kept
 * whole until the end of the stream. Any task of a playbook reaches that pipe: it is fd 3 of
 * ansible-playbook, which a shell task opens as /proc/PID/fd/3 (same user; fixture
 * test/fixtures/forms-attack5/events-flood). Figures (test/attack/attack5-events-partial.ts, 2
 * shared cores): 8 MiB 5 s, 16 MiB 18 s, 64 MiB 151 s of the RTE's event loop, RSS 522 MiB;
 * single reads up to 0.74 s. Expected: a bound on an events line (the plugin's lines are at most
 * 1 MiB of set_stats plus labels), past which the line is dropped as it arrives, in linear time.
 * Fixed: EVENTS_LINE_MAX in output-batcher.ts; only the new read is searched for a line break.
 */
import { expect, it } from "vitest";
import { createMasker } from "../../server/security/mask";
import { EVENTS_LINE_MAX, OutputBatcher } from "../../server/rte/output-batcher";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";

it("an events line with no line break costs linear time and bounded memory", () => {
  const emitted: UnnumberedItem[][] = [];
  const b = new OutputBatcher({
    intervalMs: 500,
    maxBatchBytes: 65536,
    maxBuffer: 50e6,
    mask: createMasker(["Xk9#pQ2!vB7$wL4mRt8Zq"]),
    emit: (items) => emitted.push(items),
  });
  const chunk = "a".repeat(65536);
  const started = Date.now();
  for (let i = 0; i < 16 * 16; i++) b.writeEvents(chunk); // 16 MiB, 64 KiB per read
  const ms = Date.now() - started;
  const kept = (b as unknown as { eventsPartial: string }).eventsPartial.length;
  b.stop();
  // Linear: 16 MiB of reads take well under a second when each read is not split whole again.
  expect({ ms: ms < 3000 ? "< 3 s" : `${ms} ms`, keptMiB: kept > 2 ** 21 ? `${(kept / 2 ** 20).toFixed(0)} MiB kept` : "bounded" }).toEqual(
    {
      ms: "< 3 s",
      keptMiB: "bounded",
    },
  );
}, 300_000);

it("drops an over-long events line with one runner line saying so, and reads the events after it", () => {
  const emitted: UnnumberedItem[][] = [];
  const b = new OutputBatcher({
    intervalMs: 500,
    maxBatchBytes: 65536,
    maxBuffer: 50e6,
    mask: createMasker([]),
    emit: (items) => emitted.push(items),
  });
  // A stats event as large as the plugin writes (1 MiB of set_stats) goes through, in 64 KiB reads.
  const stats = JSON.stringify({ v: 1, type: "stats", hosts: [], custom: { _run: { big: "x".repeat(2 ** 20 - 64) } } });
  const stream = `${stats}\n${"y".repeat(EVENTS_LINE_MAX + 10)}\n{"v":1,"type":"after"}\n`;
  for (let at = 0; at < stream.length; at += 65536) b.writeEvents(stream.slice(at, at + 65536));
  b.stop();
  const items = emitted.flat();
  const types = items.flatMap((i) => (i.kind === "events" ? (i.events as { type: string }[]).map((e) => e.type) : []));
  const logs = items.flatMap((i) => (i.kind === "log" ? [i.text] : []));
  expect(types).toEqual(["stats", "after"]);
  expect(logs).toEqual([
    expect.stringContaining(`dropped an event line from the callback plugin longer than ${EVENTS_LINE_MAX} characters`),
  ]);
});
