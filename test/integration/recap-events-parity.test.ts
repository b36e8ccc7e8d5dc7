/**
 * Parity: the recap computed from the playform_events side channel equals the recap parsed
 * from the text of the same real ansible-playbook run.
 *
 * The plugin is enabled exactly as the RTE enables it (ansibleEventEnv: callback dir,
 * callbacks enabled, events on fd 3 of the child, read from a pipe while the run goes).
 */
import { execa } from "execa";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePlayformEventLines, type PlayformEvent } from "../../server/recap/events";
import { recapFromEvents } from "../../server/recap/from-events";
import { parseRecapText } from "../../server/recap/parse-text";
import type { Recap, RecapTaskTiming } from "../../server/recap/types";
import { ansibleEventEnv, callbackPluginDir } from "../../server/rte/ansible/plugin-path";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PLAYBOOKS = path.resolve(HERE, "../fixtures/playbooks/parity");
const EVENTS_FD = 3;
const PROFILE_TASKS_LIMIT = 20;

function findAnsiblePlaybook(): string | null {
  try {
    return execFileSync("which", ["ansible-playbook"], { encoding: "utf8" }).trim() || null;
  } catch {
    return null;
  }
}

/** The python that runs ansible itself (shebang of ansible-playbook), for the local hosts. */
function ansiblePython(bin: string): string {
  const first = readFileSync(bin, "utf8").split("\n", 1)[0] ?? "";
  const m = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first);
  if (m?.[1]?.endsWith("/env") && m[2]) return m[2];
  return m?.[1] ?? "/usr/bin/python3";
}

interface RunOutput {
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
  rawEvents: string;
  events: PlayformEvent[];
  badLines: string[];
}

let workdir = "";
let inventory = "";
let ansibleBin: string | null = null;

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (k.startsWith("ANSIBLE_") || k.startsWith("PLAYFORM_") || k.startsWith("PROFILE_TASKS_")) continue;
    env[k] = v;
  }
  return {
    ...env,
    ANSIBLE_CONFIG: path.join(workdir, "ansible.cfg"),
    ANSIBLE_FORCE_COLOR: "0",
    ANSIBLE_NOCOLOR: "1",
    ANSIBLE_HOST_KEY_CHECKING: "False",
    ANSIBLE_RETRY_FILES_ENABLED: "False",
    ANSIBLE_LOCAL_TEMP: path.join(workdir, "tmp-local"),
    ANSIBLE_REMOTE_TEMP: path.join(workdir, "tmp-remote"),
    ANSIBLE_TIMEOUT: "5",
    ...ansibleEventEnv(EVENTS_FD),
  };
}

/**
 * Run ansible-playbook with the events on fd 3, reading that pipe live like the RTE.
 * `interruptOnTask`: send SIGINT to the run's process group (a terminal Ctrl-C) once this
 * task has started.
 */
async function runPlaybooks(
  playbooks: string[],
  interruptOnTask?: string,
  extra: { args?: string[]; env?: Record<string, string> } = {},
): Promise<RunOutput> {
  if (!ansibleBin) throw new Error("ansible-playbook is not installed");
  const subprocess = execa(ansibleBin, ["-i", inventory, ...playbooks.map((p) => path.join(PLAYBOOKS, p)), ...(extra.args ?? [])], {
    cwd: PLAYBOOKS,
    env: { ...baseEnv(), ...extra.env },
    extendEnv: false,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    reject: false,
    detached: interruptOnTask !== undefined,
    timeout: 120_000,
  });
  const eventsPipe = subprocess.stdio[EVENTS_FD] as Readable;
  eventsPipe.setEncoding("utf8");
  let rawEvents = "";
  let interrupted = false;
  eventsPipe.on("data", (chunk: string) => {
    rawEvents += chunk;
    if (interruptOnTask && !interrupted && rawEvents.includes(`"type":"task_start"`)) {
      const started = parsePlayformEventLines(rawEvents).some((e) => e.type === "task_start" && e.name === interruptOnTask);
      if (started && subprocess.pid) {
        interrupted = true;
        const pid = subprocess.pid;
        setTimeout(() => {
          try {
            process.kill(-pid, "SIGINT");
          } catch {
            // already gone
          }
        }, 500);
      }
    }
  });
  try {
    const result = await subprocess;
    const badLines: string[] = [];
    const events = parsePlayformEventLines(rawEvents, (line, reason) => badLines.push(`${line}: ${reason}`));
    return {
      stdout: String(result.stdout),
      stderr: String(result.stderr),
      exitCode: result.exitCode,
      rawEvents,
      events,
      badLines,
    };
  } finally {
    if (interruptOnTask !== undefined && subprocess.pid) {
      try {
        process.kill(-subprocess.pid, "SIGKILL"); // leftovers of the interrupted group, if any
      } catch {
        // the group is gone
      }
    }
  }
}

/**
 * How far one task's seconds may differ between the two recaps. profile_tasks and the
 * playform_events plugin each read the clock in their own callback for the same task start,
 * and a duration spans two such readings; both sides are rounded to 0.01 s. On an idle machine
 * the two agree within 0.02 s; on a loaded 2-core machine the process can be descheduled
 * between the two callbacks for tens of milliseconds, which a 0.02 s tolerance turned into
 * spurious failures. 0.1 s leaves room for that (five times what was measured) and still fails
 * for what this test is about: events timed from another moment than the task start (its first
 * result, say) or attributed to the wrong task move durations by a task's own work, which is
 * more than that for most tasks listed here (0.2 s to 3 s; a few debug tasks take less). The
 * timing rules themselves are pinned exactly by test/unit/recap/from-events.test.ts.
 */
const SECONDS_TOLERANCE = 0.1;

/**
 * slowest_tasks agree when the same tasks are listed with seconds within SECONDS_TOLERANCE,
 * and any two tasks whose text times differ by more than that keep their order (near-ties may
 * swap). When the list is cut at profile_tasks' limit (20), a task tied with the cut (within
 * the tolerance of the last entry) may be in one list and not the other.
 */
function expectSlowestAgree(fromEvents: RecapTaskTiming[], fromText: RecapTaskTiming[]): void {
  const TOL = SECONDS_TOLERANCE + 1e-9;
  expect(fromEvents.length, "slowest_tasks length").toBe(fromText.length);
  const cut = fromText.length >= PROFILE_TASKS_LIMIT;
  const floor = Math.min(...fromText.map((t) => t.seconds), ...fromEvents.map((t) => t.seconds));
  const atCut = (t: RecapTaskTiming): boolean => cut && t.seconds <= floor + TOL;
  const used = new Set<number>();
  const matched: Array<{ text: RecapTaskTiming; at: number }> = [];
  for (const t of fromText) {
    let best = -1;
    for (let i = 0; i < fromEvents.length; i++) {
      const e = fromEvents[i]!;
      if (used.has(i) || e.task !== t.task) continue;
      if (best < 0 || Math.abs(e.seconds - t.seconds) < Math.abs(fromEvents[best]!.seconds - t.seconds)) best = i;
    }
    if (best < 0 && atCut(t)) continue;
    expect(best, `slowest task ${JSON.stringify(t.task)} from the text is missing from the events`).toBeGreaterThanOrEqual(0);
    used.add(best);
    matched.push({ text: t, at: best });
    expect(Math.abs(fromEvents[best]!.seconds - t.seconds), `seconds of ${JSON.stringify(t.task)}`).toBeLessThanOrEqual(TOL);
  }
  fromEvents.forEach((e, i) => {
    if (!used.has(i)) expect(atCut(e), `slowest task ${JSON.stringify(e.task)} only in the events`).toBe(true);
  });
  for (let a = 0; a < matched.length; a++) {
    for (let b = a + 1; b < matched.length; b++) {
      const x = matched[a]!;
      const y = matched[b]!;
      if (x.text.seconds - y.text.seconds > TOL) {
        expect(x.at, `${x.text.task} before ${y.text.task}`).toBeLessThan(y.at);
      }
    }
  }
}

function expectParity(run: RunOutput, textOf: (run: RunOutput) => string = (r) => r.stdout, timed = true): { events: Recap; text: Recap } {
  const text = parseRecapText(textOf(run));
  const events = recapFromEvents(run.events);
  const ctx = `\n--- text ---\n${textOf(run)}\n--- stderr ---\n${run.stderr}`;
  expect(events.plays, `plays${ctx}`).toEqual(text.plays);
  expect(events.hosts, `hosts${ctx}`).toEqual(text.hosts);
  expect(events.status, `status${ctx}`).toBe(text.status);
  expect(events.changed_tasks, `changed_tasks${ctx}`).toEqual(text.changed_tasks);
  expect(events.ignored_failures, `ignored_failures${ctx}`).toEqual(text.ignored_failures);
  expect(events.failed_tasks, `failed_tasks${ctx}`).toEqual(text.failed_tasks);
  expect(events.unreachable_hosts, `unreachable_hosts${ctx}`).toEqual(text.unreachable_hosts);
  expectChangedResultsAddUp(run.events, events);
  if (!timed) return { events, text };
  if (text.elapsed_sec === null) {
    expect(events.elapsed_sec).toBeNull();
  } else {
    expect(events.elapsed_sec).not.toBeNull();
    expect(Math.abs(events.elapsed_sec! - text.elapsed_sec)).toBeLessThanOrEqual(1);
  }
  expectSlowestAgree(events.slowest_tasks, text.slowest_tasks);
  expect(events.tasks_per_play).toBeUndefined();
  return { events, text };
}

/**
 * A job's recap from events says where each changed= of the PLAY RECAP comes from: per host,
 * the changed results plus the ignored failures that reported changed are exactly its count.
 */
function expectChangedResultsAddUp(stream: PlayformEvent[], recap: Recap): void {
  const detail = recapFromEvents(stream, { partial: true }).changed_results;
  expect(detail).toBeDefined();
  if (recap.status === "incomplete") return;
  const perHost = new Map<string, number>();
  for (const entry of [...detail!.changed, ...detail!.ignored_failures]) {
    // One result per host here: a task name run twice on a host (serial, repeated names) has more.
    expect(entry.results).toBeGreaterThanOrEqual(entry.hosts.length);
    for (const host of entry.hosts) perHost.set(host, (perHost.get(host) ?? 0) + 1);
  }
  const total = [...detail!.changed, ...detail!.ignored_failures].reduce((sum, e) => sum + e.results, 0);
  expect(total, "changed results vs PLAY RECAP changed=").toBe(recap.hosts.reduce((sum, h) => sum + h.changed, 0));
  for (const row of recap.hosts) expect(perHost.get(row.host) ?? 0, `tasks changed on ${row.host}`).toBeLessThanOrEqual(row.changed);
}

function expectCleanStream(run: RunOutput): void {
  expect(run.badLines, "event lines that did not parse").toEqual([]);
  expect(run.events.filter((e) => e.type === "plugin_error")).toEqual([]);
  expect(run.stderr).not.toMatch(/callback plugin|playform_events/i);
  for (const line of run.rawEvents.split("\n").filter(Boolean)) {
    const obj = JSON.parse(line) as Record<string, unknown>;
    expect(obj.v).toBe(1);
    expect(typeof obj.type).toBe("string");
    expect(typeof obj.ts).toBe("number");
  }
}

describe("recap from events equals recap from text (real ansible-playbook)", () => {
  beforeAll(() => {
    ansibleBin = findAnsiblePlaybook();
    workdir = mkdtempSync(path.join(tmpdir(), "playform-parity-"));
    const python = ansibleBin ? ansiblePython(ansibleBin) : "/usr/bin/python3";
    inventory = path.join(workdir, "inventory.ini");
    writeFileSync(
      inventory,
      [
        "[nodes]",
        "node1",
        "node2",
        "node3",
        "",
        "[nodes:vars]",
        "ansible_connection=local",
        `ansible_python_interpreter=${python}`,
        "",
        "[dead]",
        "dead1 ansible_host=127.0.0.1 ansible_port=1 ansible_connection=ssh",
        "dead2 ansible_host=127.0.0.1 ansible_port=1 ansible_connection=ssh",
        "",
      ].join("\n"),
    );
    writeFileSync(path.join(workdir, "ansible.cfg"), "[defaults]\n");
  });

  afterAll(() => {
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  it("finds ansible-playbook and the plugin directory", () => {
    expect(ansibleBin, "ansible-playbook must be installed for the integration suite").toBeTruthy();
    expect(callbackPluginDir()).toMatch(/server[\\/]rte[\\/]ansible[\\/]callback_plugins$/);
    expect(ansibleEventEnv(3)).toEqual({
      ANSIBLE_CALLBACK_PLUGINS: callbackPluginDir(),
      ANSIBLE_CALLBACKS_ENABLED: "playform_events,ansible.posix.profile_tasks",
      PLAYFORM_EVENTS_FD: "3",
    });
    expect(() => ansibleEventEnv(2)).toThrow(RangeError);
  });

  it("roles, handlers, serial, loops, ignore_errors, block/rescue, includes, delegation", async () => {
    const run = await runPlaybooks(["main.yml"]);
    expectCleanStream(run);
    expect(run.exitCode).toBe(2); // node2 and node3 failed
    const { events } = expectParity(run);
    // the run really exercised the rules (guards against a vacuous parity)
    expect(events.plays.map((p) => p.name)).toEqual([
      "Roles and handlers",
      "Rolling update",
      "Rolling update",
      "Loops and errors",
      "Rescue and failures",
    ]);
    expect(events.changed_tasks).toEqual(
      expect.arrayContaining(["common : Write node1 marker", "Drain node1", "Drain node3", "common : reload stamp", "Paint red"]),
    );
    expect(events.changed_tasks).not.toContain("Ignored failure with changed");
    const detail = recapFromEvents(run.events, { partial: true }).changed_results!;
    expect(detail.ignored_failures.map((e) => e.task)).toContain("Ignored failure with changed");
    expect(detail.changed.find((e) => e.task === "Paint red")?.hosts.length).toBeGreaterThan(0);
    expect(events.changed_tasks).not.toContain("Include dynamic task file");
    expect(events.changed_tasks).not.toContain("Paint blue");
    expect(events.ignored_failures).toEqual(["Touch package markers", "Ignored failure with changed", "Ignore only on node1"]);
    expect(events.failed_tasks).toEqual(["Ignore only on node1", "Risky step", "Rescue fails on node3"]);
    expect(events.status).toBe("failed");
    expect(events.slowest_tasks).toHaveLength(20); // more tasks than profile_tasks shows
  });

  it("unreachable hosts, ignore_unreachable, no hosts matched, free strategy, retries, no_log", async () => {
    const run = await runPlaybooks(["edge.yml"]);
    expectCleanStream(run);
    const { events } = expectParity(run);
    expect(events.unreachable_hosts).toEqual(["dead2", "dead1"]);
    expect(events.plays.map((p) => p.name)).toContain("Nobody home");
    expect(run.events.some((e) => e.type === "no_hosts_matched")).toBe(true);
    expect(run.events.some((e) => e.type === "retry")).toBe(true);
    // never result data, never a no_log item
    expect(run.rawEvents).not.toContain("TOPSECRET");
    expect(events.changed_tasks).toContain("Secret loop");
    expect(events.ignored_failures).toContain("Free failure");
  });

  it("two playbooks on one command line: the last recap and summary", async () => {
    const run = await runPlaybooks(["multi-a.yml", "multi-b.yml"]);
    expectCleanStream(run);
    expect(run.exitCode).toBe(0);
    const { events } = expectParity(run);
    expect(run.events.filter((e) => e.type === "stats")).toHaveLength(2);
    expect(events.slowest_tasks.map((t) => t.task).sort()).toEqual(["Quiet in B", "Step in A", "Step in B"]);
    expect(events.status).toBe("successful");
  });

  it("PLAYFORM_EVENTS_FILE appends to a file; a reader that goes away never breaks the run", async () => {
    if (!ansibleBin) throw new Error("ansible-playbook is not installed");
    const eventsFile = path.join(workdir, "events.jsonl");
    const { PLAYFORM_EVENTS_FD: _fd, ...fileEnv } = baseEnv();
    const viaFile = await execa(ansibleBin, ["-i", inventory, path.join(PLAYBOOKS, "multi-a.yml")], {
      cwd: PLAYBOOKS,
      env: { ...fileEnv, PLAYFORM_EVENTS_FILE: eventsFile },
      extendEnv: false,
      reject: false,
    });
    expect(viaFile.exitCode).toBe(0);
    const fromFile = parsePlayformEventLines(readFileSync(eventsFile, "utf8"));
    expect(fromFile.map((e) => e.type)).toContain("stats");
    expect(recapFromEvents(fromFile)).toEqual(expect.objectContaining({ status: "successful", changed_tasks: ["Step in A"] }));

    // The reader closes fd 3 at once: the plugin stops writing, the playbook runs on.
    const closed = execa(ansibleBin, ["-i", inventory, path.join(PLAYBOOKS, "multi-a.yml")], {
      cwd: PLAYBOOKS,
      env: baseEnv(),
      extendEnv: false,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
      reject: false,
    });
    (closed.stdio[EVENTS_FD] as Readable).destroy();
    const result = await closed;
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toMatch(/^PLAY RECAP \*+/m);
    expect(String(result.stderr)).not.toMatch(/callback plugin|playform_events|Traceback/i);
  });

  it("an interrupted run (Ctrl-C): incomplete from both", async () => {
    const run = await runPlaybooks(["killed.yml"], "Long sleep");
    expectCleanStream(run);
    const { events } = expectParity(run);
    expect(events.status).toBe("incomplete");
    expect(events.changed_tasks).toEqual(["Before the sleep"]);
    expect(run.events.some((e) => e.type === "stats")).toBe(false);
  });

  it("a second playbook interrupted after the first one's recap: incomplete from both", async () => {
    const run = await runPlaybooks(["multi-a.yml", "killed.yml"], "Long sleep");
    expectCleanStream(run);
    const { events } = expectParity(run);
    expect(events.status).toBe("incomplete");
    expect(events.hosts.map((h) => h.host)).toEqual(["node1", "node2"]);
    expect(events.slowest_tasks.map((t) => t.task)).toEqual(["Step in A"]);
    expect(run.events.filter((e) => e.type === "stats")).toHaveLength(1);
  });

  /**
   * The same playbooks with other stdout callbacks, at -vvvv, and read from Ansible's own log
   * file (ANSIBLE_LOG_PATH) written by the same run: docs/recap.md, "Ansible's log file" and
   * "Verbosity and stdout callbacks". One run gives two texts, stdout and the log file.
   */
  describe("recap from events equals recap from the log file and other callbacks (real ansible-playbook)", () => {
    const logOf = (_run: RunOutput): string => readFileSync(path.join(workdir, "ansible.log"), "utf8");
    const withLog = (env: Record<string, string> = {}): Record<string, string> => {
      rmSync(path.join(workdir, "ansible.log"), { force: true });
      return { ANSIBLE_LOG_PATH: path.join(workdir, "ansible.log"), ...env };
    };

    it("main.yml at -vvvv without profile_tasks: the log file's timestamps time the tasks as the events do", async () => {
      const run = await runPlaybooks(["main.yml"], undefined, {
        args: ["-vvvv"],
        env: withLog({ ANSIBLE_CALLBACKS_ENABLED: "playform_events" }),
      });
      expectCleanStream(run);
      expect(run.stdout).toContain("ESTABLISH LOCAL CONNECTION");
      const { text } = expectParity(run, logOf); // timings too: serial batches, handlers, includes
      expect(text.slowest_tasks).toHaveLength(20);
      expectParity(run, (r) => r.stdout, false); // stdout has no timings without profile_tasks
    });

    it("main.yml with the debug callback at -v (raw MSG sections), stdout and log file", async () => {
      const run = await runPlaybooks(["main.yml"], undefined, { args: ["-v"], env: withLog({ ANSIBLE_STDOUT_CALLBACK: "debug" }) });
      expectCleanStream(run);
      expect(run.stdout).toMatch(/^MSG:$/m);
      expectParity(run);
      expectParity(run, logOf);
    });

    it("edge.yml with the yaml callback at -vv, stdout and log file (free strategy: no timing parity from timestamps)", async () => {
      const run = await runPlaybooks(["edge.yml"], undefined, {
        args: ["-vv"],
        env: withLog({ ANSIBLE_STDOUT_CALLBACK: "yaml", ANSIBLE_CALLBACKS_ENABLED: "playform_events" }),
      });
      expectCleanStream(run);
      expect(run.stdout).toMatch(/^ {2}msg: /m);
      expectParity(run, (r) => r.stdout, false);
      expectParity(run, logOf, false);
    });
  });
});
