/**
 * Records a recap fixture (test/fixtures/recap/NAME/{log.txt,expected.json}) from a real
 * ansible-playbook run:
 *
 *   npx tsx scripts/record-recap-fixture.ts NAME...      (or --all; --list shows the recipes)
 *
 * The playbooks are in test/fixtures/playbooks/recap. Each run has the playform_events callback
 * writing Ansible's own events to a file, and expected.json is computed from those events, not
 * from the text (server/recap/from-events.ts: plays, hosts, changed/failed/ignored tasks,
 * unreachable hosts, status). The timing fields are what the text really printed, found here
 * with code of its own and checked against the events' clock:
 *   - with profile_tasks: its last summary (Ansible's own figures);
 *   - a log_path file without profile_tasks: the rule of docs/recap.md ("Timings from a log
 *     file's timestamps"), computed here from the prefixes with a separate implementation;
 *   - otherwise null and [].
 * A recipe whose text and events disagree by more than the tolerance is not written.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parsePlayformEventLines } from "../server/recap/events";
import { PROFILE_TASKS_DEFAULT_LIMIT, recapFromEvents } from "../server/recap/from-events";
import type { Recap, RecapTaskTiming } from "../server/recap/types";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PLAYBOOKS = path.join(REPO, "test/fixtures/playbooks/recap");
const FIXTURES = path.join(REPO, "test/fixtures/recap");
const CALLBACKS = path.join(REPO, "server/rte/ansible/callback_plugins");
/** A fixed work directory, so the paths that -v prints are the same at every recording. */
const WORK = "/tmp/playform-recap-fixture";
/** Seconds a task's duration may differ between the text and the events (two clock readings). */
const TOLERANCE = 0.1;

interface Run {
  playbook: string | string[];
  args?: string[];
  env?: Record<string, string>;
}

interface Recipe {
  what: string;
  /** Several runs: all write to the same log_path file (appended, as Ansible does). */
  runs: Run[];
  /** Which text is the fixture: the run's stdout+stderr as a terminal shows it, or Ansible's log file. */
  text: "stdout" | "log";
  profile: boolean;
  /** A --list-tasks run: no events; expected.json is counted from the run's stdout (see planFromStdout). */
  plan?: boolean;
}

const variant = (what: string, args: string[], env: Record<string, string> = {}): Recipe => ({
  what,
  runs: [{ playbook: "variants.yml", args, env }],
  text: "stdout",
  profile: true,
});

const RECIPES: Record<string, Recipe> = {
  log_path_basic: {
    what: "ANSIBLE_LOG_PATH file of a successful run, no profile_tasks: timings from the line timestamps",
    runs: [{ playbook: "basic.yml" }],
    text: "log",
    profile: false,
  },
  log_path_failures: {
    what: "ANSIBLE_LOG_PATH file of a failed run: ignore_errors, a failed host, rescue, an unreachable host",
    runs: [{ playbook: "failures.yml" }],
    text: "log",
    profile: false,
  },
  log_path_vvvv_profile: {
    what: "ANSIBLE_LOG_PATH file at -vvvv with profile_tasks (its figures win over the timestamps)",
    runs: [{ playbook: "variants.yml", args: ["-vvvv"] }],
    text: "log",
    profile: true,
  },
  log_path_serial: {
    what: "ANSIBLE_LOG_PATH file of a serial play: a name templated per host, a rescue in the first batch only",
    runs: [{ playbook: "serial.yml" }],
    text: "log",
    profile: false,
  },
  log_path_list_tasks: {
    what: "ANSIBLE_LOG_PATH file of --list-tasks over two playbooks (the task lines continue the play's message)",
    runs: [{ playbook: ["basic.yml", "serial.yml"], args: ["--list-tasks"] }],
    text: "log",
    profile: false,
    plan: true,
  },
  log_path_debug_callback: {
    what: "ANSIBLE_LOG_PATH file of variants.yml with the debug callback at -v, without profile_tasks",
    runs: [{ playbook: "variants.yml", args: ["-v"], env: { ANSIBLE_STDOUT_CALLBACK: "debug" } }],
    text: "log",
    profile: false,
  },
  log_path_appended: {
    what: "one ANSIBLE_LOG_PATH file appended by two runs (failures.yml, then basic.yml): the last run",
    runs: [{ playbook: "failures.yml" }, { playbook: "basic.yml" }],
    text: "log",
    profile: false,
  },
  variants_plain: variant("variants.yml, default callback: the reference for the variants below", []),
  variants_v: variant("variants.yml at -v", ["-v"]),
  variants_vvvv: variant("variants.yml at -vvvv", ["-vvvv"]),
  variants_yaml_callback: variant("variants.yml with ANSIBLE_STDOUT_CALLBACK=yaml (community.general.yaml)", [], {
    ANSIBLE_STDOUT_CALLBACK: "yaml",
  }),
  variants_yaml_result_format: variant("variants.yml, default callback with ANSIBLE_CALLBACK_RESULT_FORMAT=yaml", ["-v"], {
    ANSIBLE_CALLBACK_RESULT_FORMAT: "yaml",
  }),
  variants_debug_callback: variant("variants.yml with ANSIBLE_STDOUT_CALLBACK=debug (ansible.posix.debug)", [], {
    ANSIBLE_STDOUT_CALLBACK: "debug",
  }),
  variants_debug_callback_color: variant("variants.yml with the debug callback at -v, in colour (ANSIBLE_FORCE_COLOR=1)", ["-v"], {
    ANSIBLE_STDOUT_CALLBACK: "debug",
    ANSIBLE_NOCOLOR: "0",
    ANSIBLE_FORCE_COLOR: "1",
  }),
};

/** The python that runs ansible itself (the shebang of ansible-playbook), for the local hosts. */
function ansiblePython(): string {
  const bin = spawnSync("sh", ["-c", "command -v ansible-playbook"], { encoding: "utf8" }).stdout.trim();
  if (!bin) throw new Error("ansible-playbook is not installed");
  const first = readFileSync(bin, "utf8").split("\n", 1)[0] ?? "";
  const m = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first);
  if (m?.[1]?.endsWith("/env") && m[2]) return m[2];
  return m?.[1] ?? "/usr/bin/python3";
}

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("ANSIBLE_") && !k.startsWith("PLAYFORM_") && !k.startsWith("PROFILE_TASKS_")) env[k] = v;
  }
  return {
    ...env,
    ANSIBLE_CONFIG: path.join(WORK, "ansible.cfg"),
    ANSIBLE_NOCOLOR: "1",
    ANSIBLE_HOST_KEY_CHECKING: "False",
    ANSIBLE_RETRY_FILES_ENABLED: "False",
    ANSIBLE_TIMEOUT: "5",
    ANSIBLE_LOCAL_TEMP: path.join(WORK, "tmp"),
    ANSIBLE_CALLBACK_PLUGINS: CALLBACKS,
  };
}

// ------------------------------------------------------------ timings, independently of the parser

/** profile_tasks' last summary: `NAME ---- 1.23s` lines after the `=====` line under the timestamp line. */
function profileSummary(text: string): { elapsed: number; slowest: RecapTaskTiming[] } | null {
  const lines = text.split("\n").map((l) => l.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} p=\d+ u=\S+ n=\S+ \| /, ""));
  let found: { elapsed: number; slowest: RecapTaskTiming[] } | null = null;
  for (let i = 1; i < lines.length; i++) {
    if (!/^=+ ?$/.test(lines[i]!)) continue;
    const head = /\) +(\d+):(\d\d):(\d\d\.\d+) \*+ ?$/.exec(lines[i - 1]!);
    if (!head) continue;
    const slowest: RecapTaskTiming[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const e = /^(.*?) -+ (\d+\.\d\d)s$/.exec(lines[j]!);
      if (e) slowest.push({ task: e[1]!, seconds: Number(e[2]) });
      else if (!/^\/\S+:\d+ -*$/.test(lines[j]!)) break; // -vv prints the task's path under each entry
    }
    found = { elapsed: Math.floor(Number(head[1]) * 3600 + Number(head[2]) * 60 + Number(head[3])), slowest };
  }
  return found;
}

/**
 * The timestamp rule of docs/recap.md for one run's log lines: a task (TASK / RUNNING HANDLER
 * banner) lasts until the next such banner or the PLAY RECAP banner; a later batch of a serial
 * play adds to the first batch's task of the same name and rank, else of the same position;
 * elapsed is from the first PLAY banner to the (last) PLAY RECAP banner.
 */
function logTimings(text: string): { elapsed: number; slowest: RecapTaskTiming[] } {
  const PREFIX = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3}) p=(\d+) u=\S+ n=ansible \| (.*)$/;
  const lines = text.split("\n").flatMap((l) => {
    const m = PREFIX.exec(l);
    if (!m) return [];
    const [, y, mo, d, h, mi, s, ms, pid, msg] = m;
    return [{ t: Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!, +ms!), pid: pid!, msg: msg! }];
  });
  // An appended file: the last run is the process that printed the last first PLAY banner.
  const firstPlays = new Map<string, number>();
  lines.forEach((l, i) => {
    if (l.msg.startsWith("PLAY [") && !firstPlays.has(l.pid)) firstPlays.set(l.pid, i);
  });
  const pid = [...firstPlays.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  type Task = { task: string; ms: number };
  const all: Task[] = [];
  let open: Task | null = null;
  let openAt = 0;
  let firstPlay: number | null = null;
  let recapAt = 0;
  let snapshot: RecapTaskTiming[] = [];
  let play: string | null = null;
  let batches: Array<Array<{ name: string; task: Task }>> = []; // the play's batches, their TASK banners in order
  let handlers = new Map<string, Task>();
  for (const l of lines.filter((x) => x.pid === pid)) {
    const banner = /^(PLAY|TASK|RUNNING HANDLER) \[(.*)\] \*+$/.exec(l.msg);
    if (banner) {
      const [, kind, name] = banner as unknown as [string, string, string];
      if (kind === "PLAY") {
        firstPlay ??= l.t;
        if (name !== play) {
          batches = [];
          handlers = new Map();
        }
        play = name;
        batches.push([]);
        continue;
      }
      if (open) open.ms += l.t - openAt;
      let task: Task | undefined;
      if (kind === "RUNNING HANDLER") {
        task = handlers.get(name);
        if (!task) handlers.set(name, (task = { task: name, ms: 0 }));
      } else {
        const batch = batches[batches.length - 1]!;
        const first = batches[0]!;
        if (batch !== first) {
          const rank = batch.filter((b) => b.name === name).length;
          const taken = new Set(batch.map((b) => b.task));
          const sameName = first.filter((b) => b.name === name);
          const candidate = sameName.length > 0 ? sameName[rank]?.task : first[batch.length]?.task;
          if (candidate && !taken.has(candidate)) task = candidate;
        }
        task ??= { task: name, ms: 0 };
        batch.push({ name, task });
      }
      if (!all.includes(task)) all.push(task);
      open = task;
      openAt = l.t;
    } else if (/^PLAY RECAP \*+$/.test(l.msg)) {
      if (open) open.ms += l.t - openAt;
      open = null;
      recapAt = l.t;
      snapshot = [...all]
        .sort((a, b) => b.ms - a.ms)
        .slice(0, PROFILE_TASKS_DEFAULT_LIMIT)
        .map((t) => ({ task: t.task, seconds: Math.round(t.ms / 10) / 100 }));
    }
  }
  if (firstPlay === null) throw new Error("no PLAY banner in the log file");
  return { elapsed: Math.floor((recapAt - firstPlay) / 1000), slowest: snapshot };
}

/**
 * A --list-tasks plan counted from the terminal's text of the same run (the rules of
 * docs/recap.md, "tasks_per_play", with code of its own): a play line, then its task lines.
 */
function planFromStdout(stdout: string): Recap {
  const plays: Recap["plays"] = [];
  const tasks: number[] = [];
  for (const line of stdout.split("\n")) {
    const play = /^ {2}play #\d+ \((.*?)\): (.*)\tTAGS: \[/.exec(line);
    if (play) {
      plays.push({ number: plays.length + 1, name: play[2]!, hosts: play[1]! });
      tasks.push(0);
    } else if (/^ {6}.*\tTAGS: \[/.test(line) && !/^ {6}TASK TAGS: /.test(line) && tasks.length > 0) {
      tasks[tasks.length - 1]! += 1;
    }
  }
  const none = { hosts: [], elapsed_sec: null, slowest_tasks: [], changed_tasks: [], ignored_failures: [], failed_tasks: [] };
  return { plays, ...none, unreachable_hosts: [], status: "plan", tasks_per_play: tasks };
}

/** Same tasks, each within TOLERANCE seconds of the events' figure. */
function checkAgainstEvents(what: string, fromText: RecapTaskTiming[], fromEvents: RecapTaskTiming[]): void {
  const byName = (list: RecapTaskTiming[]): string[] => list.map((t) => t.task).sort();
  if (JSON.stringify(byName(fromText)) !== JSON.stringify(byName(fromEvents))) {
    throw new Error(`${what}: the text times other tasks than the events:\n${JSON.stringify({ fromText, fromEvents }, null, 1)}`);
  }
  const left = [...fromEvents];
  for (const t of fromText) {
    const i = left.findIndex((e) => e.task === t.task && Math.abs(e.seconds - t.seconds) <= TOLERANCE + 1e-9);
    if (i < 0) throw new Error(`${what}: ${t.task} ${t.seconds}s is not within ${TOLERANCE}s of the events: ${JSON.stringify(fromEvents)}`);
    left.splice(i, 1);
  }
}

// ------------------------------------------------------------ recording

function record(name: string, recipe: Recipe): void {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(path.join(WORK, "tmp"), { recursive: true });
  const python = ansiblePython();
  writeFileSync(
    path.join(WORK, "inventory.ini"),
    [
      "node1 ansible_connection=local",
      "node2 ansible_connection=local",
      "dead1 ansible_host=127.0.0.1 ansible_port=1 ansible_connection=ssh",
      "",
      "[all:vars]",
      `ansible_python_interpreter=${python}`,
      "",
    ].join("\n"),
  );
  writeFileSync(path.join(WORK, "ansible.cfg"), "[defaults]\n");
  const logFile = path.join(WORK, "ansible.log");
  let stdout = "";
  let events = "";
  for (const [i, run] of recipe.runs.entries()) {
    const eventsFile = path.join(WORK, `events-${i}.jsonl`);
    const env: Record<string, string> = {
      ...baseEnv(),
      ANSIBLE_CALLBACKS_ENABLED: recipe.profile ? "playform_events,ansible.posix.profile_tasks" : "playform_events",
      PLAYFORM_EVENTS_FILE: eventsFile,
      ...(recipe.text === "log" ? { ANSIBLE_LOG_PATH: logFile } : {}),
      ...run.env,
    };
    // One pipe for stdout and stderr, in the order they were written, as a terminal or `2>&1 | tee` keeps them.
    const playbooks = (Array.isArray(run.playbook) ? run.playbook : [run.playbook]).map((p) => path.join(PLAYBOOKS, p));
    const args = ["-i", path.join(WORK, "inventory.ini"), ...playbooks, ...(run.args ?? [])];
    const r = spawnSync("sh", ["-c", 'exec "$0" "$@" 2>&1', "ansible-playbook", ...args], {
      cwd: PLAYBOOKS,
      env: env as NodeJS.ProcessEnv, // the whole environment, minus the ANSIBLE_* of the caller
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    if (r.error) throw r.error;
    console.log(`  ${String(run.playbook)} ${(run.args ?? []).join(" ")} exited ${r.status}`);
    stdout = r.stdout;
    if (!recipe.plan) events = readFileSync(eventsFile, "utf8"); // the last run's events: the recap is of the last run
  }
  const text = recipe.text === "log" ? readFileSync(logFile, "utf8") : stdout;
  if (recipe.plan) return write(name, text, planFromStdout(stdout));
  const fromEvents = recapFromEvents(parsePlayformEventLines(events, (line, reason) => console.warn(`bad event ${reason}: ${line}`)));

  let timings: { elapsed: number | null; slowest: RecapTaskTiming[] } = { elapsed: null, slowest: [] };
  if (recipe.profile) {
    const summary = profileSummary(text);
    if (!summary) throw new Error("profile_tasks was enabled but printed no summary");
    timings = summary;
  } else if (recipe.text === "log") {
    timings = logTimings(text);
  }
  if (timings.elapsed !== null) {
    checkAgainstEvents(name, timings.slowest, fromEvents.slowest_tasks);
    if (fromEvents.elapsed_sec === null || Math.abs(fromEvents.elapsed_sec - timings.elapsed) > 1) {
      throw new Error(`${name}: elapsed ${timings.elapsed} s from the text, ${fromEvents.elapsed_sec} s from the events`);
    }
  }
  write(name, text, { ...fromEvents, elapsed_sec: timings.elapsed, slowest_tasks: timings.slowest });
}

function write(name: string, text: string, expected: Recap): void {
  const dir = path.join(FIXTURES, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "log.txt"), text);
  writeFileSync(path.join(dir, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`);
  console.log(`  wrote ${path.relative(REPO, dir)}: ${text.split("\n").length - 1} lines, status ${expected.status}`);
}

const args = process.argv.slice(2);
if (args.length === 0 || args.includes("--list")) {
  for (const [name, r] of Object.entries(RECIPES)) console.log(`${name.padEnd(30)} ${r.what}`);
  if (args.length === 0) console.log("\nusage: npx tsx scripts/record-recap-fixture.ts NAME... | --all");
} else {
  const names = args.includes("--all") ? Object.keys(RECIPES) : args;
  for (const name of names) {
    const recipe = RECIPES[name];
    if (!recipe) throw new Error(`no recipe ${name} (--list shows them)`);
    console.log(`${name}: ${recipe.what}`);
    record(name, recipe);
  }
  if (existsSync(WORK)) rmSync(WORK, { recursive: true, force: true });
}
