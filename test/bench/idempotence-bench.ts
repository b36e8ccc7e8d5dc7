/**
 * `npm run bench:idempotence`: what the idempotence report costs for a form with
 * kubespray-size runs (~20,000 events each: 500 tasks on 40 hosts), per run on a cache miss
 * (parse the stored events, reduce them to per-task changes) and for a report over 20 runs once
 * the per-job summaries are cached; and how large a cached summary is next to the events.
 * Figures are printed, never asserted: speed depends on the machine. The database read of the
 * events (one query per job) is not included.
 */
import { performance } from "node:perf_hooks";
import { parsePlayformEvent, type PlayformEvent } from "../../server/recap/events";
import { idempotenceCsv, idempotenceReport, taskChangesFromEvents, type IdempotenceRunInput } from "../../server/recap/idempotence";
import { recap } from "../support/recap-rows";

const HOSTS = Array.from({ length: 40 }, (_, i) => `node${String(i + 1).padStart(3, "0")}.example.internal`);
const PLAYS = 10;
const TASKS_PER_PLAY = 50;
const RUNS = 20;

/** One run's raw events (as stored: plain objects), `seed` varying which tasks change where. */
function rawRun(seed: number): unknown[] {
  const out: unknown[] = [{ v: 1, type: "playbook_start", ts: 1, playbook: "cluster.yml" }];
  let ts = 1;
  let n = 0;
  for (let p = 0; p < PLAYS; p++) {
    out.push({ v: 1, type: "play_start", ts: (ts += 0.01), play: `play-${p}`, name: `play ${p % 7}`, batch: 1, strategy: "linear" });
    for (let t = 0; t < TASKS_PER_PLAY; t++) {
      const task = `uuid-${++n}`;
      out.push({ v: 1, type: "task_start", ts: (ts += 0.01), task, name: `role${t % 9} : step ${t}`, kind: "task" });
      for (const [h, host] of HOSTS.entries()) {
        const changed = t % 10 === 0 || (t % 7 === 0 && (h + seed) % 5 === 0) || (seed === 0 && t % 3 === 0);
        const status = t % 11 === 0 ? "skipped" : "ok";
        out.push({ v: 1, type: "task_result", ts: (ts += 0.001), task, host, status, changed: status === "ok" && changed });
      }
    }
  }
  out.push({ v: 1, type: "stats", ts: (ts += 0.01), hosts: [] }, { v: 1, type: "playbook_end", ts: ts + 0.02, playbook: "cluster.yml" });
  return out;
}

const emptyRecap = recap();

const median = (xs: number[]): string => [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(1);

function ms(start: number): string {
  return `${(performance.now() - start).toFixed(1)} ms`;
}

const raws = Array.from({ length: RUNS }, (_, i) => rawRun(i));
console.log(`${RUNS} runs of ${raws[0]!.length} events (${PLAYS * TASKS_PER_PLAY} tasks × ${HOSTS.length} hosts)`);
console.log(`one run's events as JSON: ${(JSON.stringify(raws[0]).length / 1024).toFixed(0)} KiB`);

// Warm up the JIT on one run, then time the miss path per run.
taskChangesFromEvents(raws[0]!.map((r) => (parsePlayformEvent(r) as { event: PlayformEvent }).event));
const missTimes: number[] = [];
const parseTimes: number[] = [];
const runs: IdempotenceRunInput[] = [];
const start = performance.now();
for (const [i, raw] of raws.entries()) {
  const t0 = performance.now();
  const events: PlayformEvent[] = [];
  for (const r of raw) {
    const parsed = parsePlayformEvent(r);
    if (parsed.kind === "event") events.push(parsed.event);
  }
  parseTimes.push(performance.now() - t0);
  const tasks = taskChangesFromEvents(events);
  missTimes.push(performance.now() - t0);
  runs.push({ id: String(i + 1), finishedAt: new Date(Date.UTC(2026, 10, 30, 10, i)).toISOString(), recap: emptyRecap, tasks });
}
console.log(
  `miss per run: median ${median(missTimes)} ms (of which parsing the events ${median(parseTimes)} ms); all ${RUNS}: ${ms(start)}`,
);
console.log(`cached summary of one run as JSON: ${(JSON.stringify(runs[0]!.tasks).length / 1024).toFixed(0)} KiB`);
// Heap held by the summaries (with node --expose-gc, as the npm script runs it).
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  const summaries = () =>
    raws.map((raw) => taskChangesFromEvents(raw.map((r) => (parsePlayformEvent(r) as { event: PlayformEvent }).event)));
  summaries(); // warm-up: the code and its feedback are not the summaries' heap
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = [summaries(), summaries()];
  gc();
  const per = (process.memoryUsage().heapUsed - before) / (kept.length * raws.length);
  console.log(
    `heap per cached summary: ${(per / 1024).toFixed(0)} KiB (the 256-entry cache: ~${((per * 256) / 1024 / 1024).toFixed(0)} MiB of such runs)`,
  );
}

const reportTimes: number[] = [];
let report = idempotenceReport(runs);
for (let i = 0; i < 10; i++) {
  const t1 = performance.now();
  report = idempotenceReport(runs);
  reportTimes.push(performance.now() - t1);
}
reportTimes.sort((a, b) => a - b);
console.log(
  `report over ${RUNS} cached runs: median ${reportTimes[5]!.toFixed(1)} ms, slowest ${reportTimes[9]!.toFixed(1)} ms (${report.tasks.length} tasks listed, ${report.tasks_never_changed} never changed)`,
);
const t2 = performance.now();
const csv = idempotenceCsv(report);
console.log(`CSV: ${ms(t2)}, ${(csv.length / 1024).toFixed(0)} KiB; JSON ${(JSON.stringify(report).length / 1024).toFixed(0)} KiB`);
