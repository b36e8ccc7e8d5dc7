/**
 * `npm run bench:progress`: how good the time left of a running job is (server/recap/progress.ts,
 * docs/recap.md "Progress of a running job"), on recorded runs of a real playbook.
 *
 * The recordings (test/fixtures/progress/run-N.jsonl) are the callback plugin's events of real
 * `ansible-playbook` runs of test/fixtures/playbooks/progress/rollout.yml: three plays, an
 * include in a loop whose length varies (3 to 5 nodes), an optional task, and task times that
 * change from run to run (a slower or faster run overall, each task ±25 %, one run with a
 * download three times as slow). `npm run bench:progress -- --record` records them again
 * (about two minutes of mostly sleeping); they are recorded too when missing.
 *
 * Each run is replayed with the other runs as its history (newest first, at most 5, as the app
 * takes them): its events are cut at 25, 50 and 75 % of its duration (first task start to
 * playbook end), fed to the TaskStartTracker as the app would, and the estimate's time left is
 * compared with the time the run really had left. Printed beside it: a naive baseline, the
 * median duration of the history minus the elapsed time. Then what it costs the app for a
 * kubespray-size job (costSection). Figures are printed, never asserted.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parsePlayformEvent, parsePlayformEventLines, type PlayformEvent } from "../../server/recap/events";
import { estimateProgress, median, prepareReference, TaskStartTracker } from "../../server/recap/progress";
import { timelineFromEvents } from "../../server/recap/timeline";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PLAYBOOK = path.join(REPO, "test/fixtures/playbooks/progress/rollout.yml");
const FIXTURES = path.join(REPO, "test/fixtures/progress");
const CALLBACKS = path.join(REPO, "server/rte/ansible/callback_plugins");
const CUTS = [0.25, 0.5, 0.75];
const HISTORY = 5;

// ---------------------------------------------------------------- recording

/** Base seconds of each timed task. */
const BASE = { check: 0.5, download: 3, cleanup: 1.5, unpack: 1, render: 0.5, restart: 2, wait: 1.5, smoke: 1 };
const JOIN = 1.5;
/** Per run: overall speed, nodes joining, optional task run, a task much slower than usual. */
const RUNS: { speed: number; nodes: number; cleanup: boolean; slow?: keyof typeof BASE }[] = [
  { speed: 1, nodes: 3, cleanup: true },
  { speed: 0.8, nodes: 4, cleanup: false },
  { speed: 1.25, nodes: 3, cleanup: false },
  { speed: 1, nodes: 5, cleanup: true, slow: "download" },
  { speed: 1.5, nodes: 4, cleanup: false },
  { speed: 0.9, nodes: 3, cleanup: false },
];

function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const secs = (x: number): number => Math.round(x * 100) / 100;

function ansiblePython(): string {
  const bin = spawnSync("sh", ["-c", "command -v ansible-playbook"], { encoding: "utf8" }).stdout.trim();
  if (!bin) throw new Error("ansible-playbook is not installed: it is needed to record the runs");
  const first = readFileSync(bin, "utf8").split("\n", 1)[0] ?? "";
  const m = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first);
  if (m?.[1]?.endsWith("/env") && m[2]) return m[2];
  return m?.[1] ?? "/usr/bin/python3";
}

function record(): void {
  const work = mkdtempSync(path.join(tmpdir(), "playform-progress-record-"));
  mkdirSync(FIXTURES, { recursive: true });
  for (const f of readdirSync(FIXTURES)) if (f.endsWith(".jsonl")) rmSync(path.join(FIXTURES, f));
  writeFileSync(
    path.join(work, "inventory.ini"),
    `[local]\nlocalhost ansible_connection=local ansible_python_interpreter=${ansiblePython()}\n`,
  );
  const random = generator(20261201);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith("ANSIBLE_") && !k.startsWith("PLAYFORM_")) env[k] = v;
  for (const [i, run] of RUNS.entries()) {
    const jitter = () => 0.75 + 0.5 * random();
    const times = Object.fromEntries(
      Object.entries(BASE).map(([task, base]) => [task, secs(base * run.speed * jitter() * (run.slow === task ? 3 : 1))]),
    );
    const vars = {
      times,
      join_times: Array.from({ length: run.nodes }, () => secs(JOIN * run.speed * jitter())),
      cleanup: run.cleanup,
    };
    const varsFile = path.join(work, `vars-${i + 1}.json`);
    writeFileSync(varsFile, JSON.stringify(vars));
    const eventsFile = path.join(work, `events-${i + 1}.jsonl`);
    const started = Date.now();
    const runEnv: Record<string, string> = {
      ...env,
      ANSIBLE_NOCOLOR: "1",
      ANSIBLE_RETRY_FILES_ENABLED: "False",
      ANSIBLE_LOCAL_TEMP: path.join(work, "tmp"),
      ANSIBLE_CALLBACK_PLUGINS: CALLBACKS,
      ANSIBLE_CALLBACKS_ENABLED: "playform_events",
      PLAYFORM_EVENTS_FILE: eventsFile,
    };
    const r = spawnSync("ansible-playbook", ["-i", path.join(work, "inventory.ini"), PLAYBOOK, "-e", `@${varsFile}`], {
      cwd: work,
      env: runEnv as NodeJS.ProcessEnv,
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`run ${i + 1} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    writeFileSync(path.join(FIXTURES, `run-${i + 1}.jsonl`), readFileSync(eventsFile, "utf8"));
    console.log(`recorded run ${i + 1}: ${((Date.now() - started) / 1000).toFixed(1)} s, ${JSON.stringify(vars)}`);
  }
  rmSync(work, { recursive: true, force: true });
}

// ---------------------------------------------------------------- replay

interface Recorded {
  name: string;
  events: PlayformEvent[];
  t0: number;
  total: number;
  tasks: number;
}

function load(): Recorded[] {
  const files = readdirSync(FIXTURES)
    .filter((f) => /^run-\d+\.jsonl$/.test(f))
    .sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]));
  return files.map((f) => {
    const events = parsePlayformEventLines(readFileSync(path.join(FIXTURES, f), "utf8"));
    const timeline = timelineFromEvents(events);
    if (timeline.started_at === null || timeline.total_sec === null) throw new Error(`${f} is not a complete run`);
    return { name: f.replace(".jsonl", ""), events, t0: timeline.started_at, total: timeline.total_sec, tasks: timeline.tasks.length };
  });
}

interface Cut {
  estimate: number;
  actual: number;
  baseline: number;
  seen: number;
  expected: number | null;
}

function replay(run: Recorded, history: Recorded[], fraction: number): Cut {
  const at = fraction * run.total;
  const tracker = new TaskStartTracker();
  tracker.feed(run.events.filter((e) => e.ts - run.t0 <= at));
  const refs = history.map((h) => prepareReference(timelineFromEvents(h.events)));
  const estimate = estimateProgress(refs, { tasks: tracker.tasks(), elapsed_sec: at });
  return {
    estimate: estimate.remaining_sec!,
    actual: run.total - at,
    baseline: Math.max(0, median(history.map((h) => h.total)) - at),
    seen: estimate.tasks_seen,
    expected: estimate.tasks_expected,
  };
}

const f1 = (x: number): string => x.toFixed(1);
const signed = (x: number): string => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;
const pct = (err: number, actual: number): string => `${signed((100 * err) / actual)}%`;

function main(): void {
  if (process.argv.includes("--record") || !existsSync(FIXTURES) || !readdirSync(FIXTURES).some((f) => f.endsWith(".jsonl"))) record();
  const runs = load();
  console.log(`progress estimate on ${runs.length} recorded runs of rollout.yml (each against the others, at most ${HISTORY})\n`);
  const header = ["run", "tasks", "total s", ...CUTS.flatMap((c) => [`@${c * 100}% left s`, "est s", "err s", "err %", "tasks"])];
  const rows: string[][] = [];
  const errs = new Map<number, { est: number[]; estPct: number[]; base: number[]; basePct: number[] }>(
    CUTS.map((c) => [c, { est: [], estPct: [], base: [], basePct: [] }]),
  );
  for (const [i, run] of runs.entries()) {
    // The other runs, newest first (a higher number is newer), at most HISTORY.
    const history = runs
      .filter((_, j) => j !== i)
      .reverse()
      .slice(0, HISTORY);
    const row = [run.name, String(run.tasks), f1(run.total)];
    for (const c of CUTS) {
      const cut = replay(run, history, c);
      const err = cut.estimate - cut.actual;
      const e = errs.get(c)!;
      e.est.push(Math.abs(err));
      e.estPct.push(Math.abs((100 * err) / cut.actual));
      e.base.push(Math.abs(cut.baseline - cut.actual));
      e.basePct.push(Math.abs((100 * (cut.baseline - cut.actual)) / cut.actual));
      row.push(f1(cut.actual), f1(cut.estimate), signed(err), pct(err, cut.actual), `${cut.seen}/${cut.expected}`);
    }
    rows.push(row);
  }
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanRow = ["mean |err|", "", ""];
  const baseRow = ["baseline |err|", "", ""];
  for (const c of CUTS) {
    const e = errs.get(c)!;
    meanRow.push("", "", f1(mean(e.est)), `${f1(mean(e.estPct))}%`, "");
    baseRow.push("", "", f1(mean(e.base)), `${f1(mean(e.basePct))}%`, "");
  }
  const table = [header, ...rows, meanRow, baseRow];
  const widths = header.map((_, k) => Math.max(...table.map((r) => (r[k] ?? "").length)));
  for (const [k, r] of table.entries()) {
    console.log(r.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]!) : cell.padStart(widths[j]!))).join("  "));
    if (k === 0 || k === rows.length) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
  console.log(
    "\nleft s: the time the run really had left at the cut; est s: the estimate; err: estimate minus real (+ = too pessimistic),",
    "\n% of the real time left; tasks: seen / expected. baseline: median duration of the history minus the elapsed time.",
  );
}

/**
 * What one look costs the app for a kubespray-size job: 5 references of 600 tasks, a running
 * job 300 tasks in whose ~20,000 events arrive in batches (the tracker is fed each batch once),
 * then one estimate per watcher poll.
 */
function costSection(): void {
  const TASKS = 600;
  const HOSTS = 32;
  const random = generator(7);
  const events = (speed: number, upTo: number): PlayformEvent[] => {
    const out: PlayformEvent[] = [{ v: 1, type: "play_start", ts: 0, name: "cluster", pattern: "all", batch: 1, strategy: "linear" }];
    let t = 1;
    for (let i = 0; i < upTo; i++) {
      out.push({ v: 1, type: "task_start", ts: t, task: `u${i}`, name: `role${i % 40} : task ${i}`, kind: "task" });
      for (let h = 0; h < HOSTS; h++) {
        t += speed * 0.1 * (0.5 + random());
        out.push({ v: 1, type: "task_result", ts: t, task: `u${i}`, host: `node${h}`, status: "ok", changed: false });
        out.push({ v: 1, type: "item_result", ts: t, task: `u${i}`, host: `node${h}`, status: "ok", changed: false });
      }
    }
    if (upTo === TASKS) out.push({ v: 1, type: "playbook_end", ts: t + 1, playbook: "cluster.yml" } as PlayformEvent);
    return out;
  };
  // As stored: JSON, parsed and checked again when read (loadJobEvents).
  const stored = [1, 1.1, 0.9, 1.2, 1].map((speed) => JSON.parse(JSON.stringify(events(speed, TASKS))) as unknown[]);
  let started = performance.now();
  const refs = stored.map((raw) =>
    prepareReference(
      timelineFromEvents(
        raw.flatMap((e) => {
          const parsed = parsePlayformEvent(e);
          return parsed.kind === "event" ? [parsed.event] : [];
        }),
      ),
    ),
  );
  const prepareMs = (performance.now() - started) / refs.length;
  const live = events(1.05, TASKS / 2);
  started = performance.now();
  const tracker = new TaskStartTracker();
  for (let i = 0; i < live.length; i += 200) tracker.feed(live.slice(i, i + 200));
  const feedMs = performance.now() - started;
  const LOOKS = 2000;
  started = performance.now();
  for (let i = 0; i < LOOKS; i++) estimateProgress(refs, { tasks: tracker.tasks(), elapsed_sec: tracker.eventSpan + 1 });
  const lookMs = (performance.now() - started) / LOOKS;
  console.log(
    `\ncost (kubespray-size: ${TASKS}-task references, a running job at task ${tracker.taskCount} with ${live.length} events):`,
    `\n  a reference (${stored[0]!.length} events parsed, its timeline built), once per finished job, then kept: ${prepareMs.toFixed(1)} ms`,
    `\n  the running job's ${live.length} events fed to the tracker in batches of 200, once: ${feedMs.toFixed(1)} ms in all`,
    `\n  one estimate against 5 references (each watcher's poll, events already fed): ${lookMs.toFixed(3)} ms`,
  );
}

main();
costSection();
