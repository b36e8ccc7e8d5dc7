/**
 * `npm run bench:compare-events`: what the job page's comparison costs for two kubespray-class
 * runs stored with events (the target: the page handles two 100,000+ line logs in under 2 s).
 *
 * The job page asks `compare/previous`; the app reads each job's recap from its cache, or, the
 * first time, computes it from the job's stored events: validate every event (zod), reduce them
 * to the recap, and build the timeline for `playbook_sec`. This bench measures those steps on
 * two synthetic runs of the shape a kubespray `cluster.yml` has at 40 hosts (600 tasks, one
 * result per task and host, 1 task in 10 a loop of 5 items, a few changes and ignored failures),
 * in this process, so the figures are the CPU cost the app pays on top of reading the rows:
 *   - cold: both recaps computed from the raw events (first view after the jobs ended),
 *   - warm: both recaps cached, only the comparison (every later view),
 *   - NAIVE BASELINE: the same comparison from both runs' text logs, parsed in full each time,
 *     which is what a page without events or a recap cache would do.
 * Figures are printed, never asserted: speed depends on the machine.
 */
import { performance } from "node:perf_hooks";
import { compareRecaps } from "../../server/recap/compare";
import { parsePlayformEvent, type PlayformEvent } from "../../server/recap/events";
import { recapFromEvents } from "../../server/recap/from-events";
import { parseRecapText } from "../../server/recap/parse-text";
import { timelineFromEvents } from "../../server/recap/timeline";
import type { Recap } from "../../server/recap/types";
import { bigRunLog } from "./big-logs";

const HOSTS = Array.from({ length: 40 }, (_, i) => `node${String(i + 1).padStart(3, "0")}.example.internal`);
const TASKS = 600;
const RUNS = 5;

/** One run's events as stored (plain objects from JSON), the second run changing less. */
function syntheticRun(second: boolean): unknown[] {
  const events: Record<string, unknown>[] = [];
  let ts = 1_780_000_000;
  const tick = (s: number): number => (ts += s);
  events.push({ v: 1, type: "playbook_start", ts, playbook: "cluster.yml" });
  let play = 0;
  for (let t = 0; t < TASKS; t++) {
    if (t % 60 === 0)
      events.push({ v: 1, type: "play_start", ts: tick(0.2), name: `Play ${++play}`, pattern: "all", batch: 1, strategy: "linear" });
    const task = `task-${second ? "b" : "a"}-${t}`;
    events.push({ v: 1, type: "task_start", ts: tick(0.05), task, name: `kubernetes/node : step ${t}`, kind: "task", action: "command" });
    const loop = t % 10 === 3;
    for (const host of HOSTS) {
      const changed = second ? t % 50 === 0 : t % 4 === 0;
      if (loop) {
        for (let i = 0; i < 5; i++)
          events.push({ v: 1, type: "item_result", ts: tick(0.001), task, host, status: "ok", changed, item: `item-${i}` });
      }
      const failedIgnored = t % 97 === 5;
      events.push({
        v: 1,
        type: "task_result",
        ts: tick(0.004),
        task,
        host,
        status: failedIgnored ? "failed" : "ok",
        changed,
        ...(failedIgnored ? { ignored: true } : {}),
        ...(loop ? { loop: true } : {}),
      });
    }
  }
  events.push({
    v: 1,
    type: "stats",
    ts: tick(0.1),
    hosts: HOSTS.map((host) => ({ host, ok: TASKS, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 })),
  });
  events.push({ v: 1, type: "playbook_end", ts: tick(0.01) });
  return JSON.parse(JSON.stringify(events)) as unknown[];
}

/** What server/jobs/recap.ts does with a job's stored events. */
function jobRecapFromStored(stored: unknown[]): Recap {
  const events: PlayformEvent[] = [];
  for (const raw of stored) {
    const parsed = parsePlayformEvent(raw);
    if (parsed.kind === "event") events.push(parsed.event);
  }
  return { ...recapFromEvents(events, { partial: true }), playbook_sec: timelineFromEvents(events).total_sec };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(what: () => void): number {
  const started = performance.now();
  what();
  return performance.now() - started;
}

const a = syntheticRun(false);
const b = syntheticRun(true);
const logA = bigRunLog({ hosts: 40, minLines: 100_000, format: "stdout", second: false });
const logB = bigRunLog({ hosts: 40, minLines: 100_000, format: "stdout", second: true });
console.log(
  `comparison of two kubespray-class runs (${HOSTS.length} hosts, ${TASKS} tasks): ${a.length.toLocaleString("en")} + ${b.length.toLocaleString("en")} events; text baseline ${logA.lines.toLocaleString("en")} + ${logB.lines.toLocaleString("en")} lines; median of ${RUNS}`,
);

let recapA: Recap | null = null;
let recapB: Recap | null = null;
const cold = Array.from({ length: RUNS }, () =>
  time(() => {
    recapA = jobRecapFromStored(a);
    recapB = jobRecapFromStored(b);
    compareRecaps(recapA, recapB);
  }),
);
const warm = Array.from({ length: RUNS }, () => time(() => compareRecaps(recapA!, recapB!)));
const naive = Array.from({ length: RUNS }, () => time(() => compareRecaps(parseRecapText(logA.text), parseRecapText(logB.text))));
const detail = recapA!.changed_results!;

console.log("");
console.log("| path | median | per view |");
console.log("|---|---|---|");
console.log(`| cold: both recaps from events (validate, reduce, timeline) + compare | ${median(cold).toFixed(0)} ms | first view only |`);
console.log(`| warm: both recaps cached, compare only | ${median(warm).toFixed(2)} ms | every later view |`);
console.log(`| NAIVE BASELINE: both text logs parsed, then compared | ${median(naive).toFixed(0)} ms | every view |`);
console.log("");
console.log(
  `run A: ${recapA!.changed_tasks.length} changed tasks, ${detail.changed.reduce((s, e) => s + e.results, 0)} changed results, playbook ${recapA!.playbook_sec?.toFixed(3)} s; heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`,
);
