/**
 * Kubespray-class logs for the recap bench: two runs of one playbook (a first run, then a
 * second, mostly idempotent one) with many hosts and tasks, built by replicating the task
 * blocks of the real logs recorded in test/fixtures/recap (result lines, -v JSON payloads,
 * loops, ignored failures, skips, includes, handlers), renamed and spread over more hosts.
 *
 * Two shapes of the same runs: what a terminal shows with profile_tasks (`stdout`), and
 * Ansible's own log file (`log_path`: prefixed messages, no empty lines, no profile_tasks).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const FIXTURES = join(import.meta.dirname, "../fixtures/recap");
/** Terminal logs with plain result blocks to take tasks from (the others are plans, killed runs, log files). */
const SOURCES = [
  "roles_handlers",
  "loops_items",
  "conditions_when",
  "include_import",
  "delegate_run_once",
  "verbose_v_errors",
  "variants_plain",
  "variants_v",
  "variants_yaml_callback",
];
const ROLES = [
  "kubespray-defaults",
  "bootstrap-os",
  "kubernetes/preinstall",
  "container-engine/containerd",
  "download",
  "etcd",
  "kubernetes/control-plane",
  "kubernetes/node",
  "network_plugin/calico",
  "kubernetes-apps/ansible",
];
const RESULT_RE = /^(ok|changed|skipping|included|fatal|failed): /;
const HOST_RE = /\[([^\]\s]+?)(?: -> [^\]]+)?\]/;

/** One host's output for a task: a result line and what belongs to it (payload, `...ignoring`). */
interface Group {
  host: string;
  lines: string[];
}
interface Block {
  kind: "TASK" | "RUNNING HANDLER";
  name: string;
  groups: Group[];
}

function blocksOf(text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  let block: Block | null = null;
  let group: Group | null = null;
  for (const line of lines) {
    const banner = /^(TASK|RUNNING HANDLER) \[(.*)\] \*+$/.exec(line);
    if (banner) {
      block = { kind: banner[1] as Block["kind"], name: banner[2]!, groups: [] };
      blocks.push(block);
      group = null;
      continue;
    }
    if (/^(PLAY|PLAY RECAP) /.test(line) || /^\S.*\(\d+:\d\d:\d\d\.\d+\) +\d+:/.test(line)) {
      if (line.startsWith("PLAY")) block = null;
      group = null;
      continue;
    }
    if (!block) continue;
    if (RESULT_RE.test(line)) {
      const host = HOST_RE.exec(line)?.[1];
      if (!host || /^(fatal|failed): /.test(line)) {
        // a failure is kept only with its ...ignoring (a real one would end the host's run)
        group = host ? { host, lines: [line] } : null;
        if (group) block.groups.push(group);
        continue;
      }
      group = { host, lines: [line] };
      block.groups.push(group);
    } else if (group && line !== "") {
      group.lines.push(line);
    } else {
      group = null;
    }
  }
  for (const b of blocks) {
    b.groups = b.groups.filter((g) => !/^(fatal|failed): /.test(g.lines[0]!) || g.lines.includes("...ignoring"));
  }
  return blocks.filter((b) => b.groups.length > 0);
}

const banner = (head: string): string => `${head} ${"*".repeat(Math.max(3, 79 - head.length))}`;
const hms = (s: number): string =>
  `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${(s % 60).toFixed(3).padStart(6, "0")}`;
function stamp(t: number, dt: number): string {
  const msg = `Monday 30 November 2026  06:37:35 +0000 (${hms(dt)})       ${hms(t)} `;
  return `${msg}${"*".repeat(Math.max(3, 79 - msg.length))} `;
}
function logPrefix(seconds: number): string {
  const t = new Date(Date.UTC(2026, 10, 30, 6, 0, 0) + Math.round(seconds * 1000));
  const p = (n: number, w = 2): string => String(n).padStart(w, "0");
  return (
    `${t.getUTCFullYear()}-${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())} ` +
    `${p(t.getUTCHours())}:${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())},${p(t.getUTCMilliseconds(), 3)} p=41822 u=deploy n=ansible | `
  );
}

export interface BigRun {
  text: string;
  lines: number;
  tasks: number;
}

/**
 * One run as text: `second` makes most changes ok (the idempotence question), with other
 * timings. Deterministic: the same arguments give the same text.
 */
export function bigRunLog(opts: { hosts: number; minLines: number; format: "stdout" | "log_path"; second: boolean }): BigRun {
  const templates = SOURCES.flatMap((name) => blocksOf(readFileSync(join(FIXTURES, name, "log.txt"), "utf8")));
  if (templates.length === 0 || !readdirSync(FIXTURES).includes(SOURCES[0]!)) throw new Error("no task blocks in the fixtures");
  const hosts = Array.from({ length: opts.hosts }, (_, i) => `k8s-node-${String(i + 1).padStart(3, "0")}.cluster.internal`);
  const counts = new Map(hosts.map((h) => [h, { ok: 0, changed: 0, skipped: 0, ignored: 0 }]));
  const log = opts.format === "log_path";
  const out: string[] = [];
  let t = 0;
  let lines = 0;
  let tasks = 0;
  const timings: Array<[string, number]> = [];
  /** One message: in a log file, its first line carries the prefix; on a terminal, a banner has an empty line before it. */
  const emit = (message: string[], bannerLine = false, at = t): void => {
    if (!log && bannerLine) message = ["", ...message];
    if (log) message = [logPrefix(at) + message[0], ...message.slice(1)];
    for (const l of message) out.push(l);
    lines += message.length;
  };
  for (let play = 1; lines < opts.minLines; play++) {
    emit([banner(`PLAY [Kubespray play ${play}: ${ROLES[play % ROLES.length]}]`)], true);
    for (let k = 0; k < 40 && lines < opts.minLines; k++, tasks++) {
      const template = templates[(tasks * 7) % templates.length]!;
      const bare = template.name.replace(/^[^:[]+ : /, "");
      const name = template.kind === "TASK" ? `${ROLES[(tasks + play) % ROLES.length]} : ${bare} (${tasks})` : bare;
      const dt = 0.05 + (((tasks * 7919) % 1000) / 1000) * (opts.second ? 1.5 : 3) + (k === 7 ? 20 : 0);
      emit([banner(`${template.kind} [${name}]`)], true);
      if (!log) emit([stamp(t, dt)]);
      timings.push([name, dt]);
      hosts.forEach((host, h) => {
        const group = template.groups[h % template.groups.length]!;
        const c = counts.get(host)!;
        let first = group.lines[0]!;
        const keepChange = !opts.second || tasks % 10 === 0;
        if (first.startsWith("changed: ") && !keepChange) first = `ok: ${first.slice("changed: ".length)}`;
        const swap = (l: string): string => l.split(`[${group.host}`).join(`[${host}`);
        const rest = group.lines.slice(1).map(swap);
        const ignoring = rest.includes("...ignoring");
        const at = t + (dt * (h + 1)) / (hosts.length + 1);
        emit([swap(first), ...rest.filter((l) => l !== "...ignoring")], false, at);
        if (ignoring) emit(["...ignoring"], false, at);
        if (first.startsWith("changed: ")) c.changed++;
        if (first.startsWith("skipping: ")) c.skipped++;
        else c.ok++;
        if (ignoring) c.ignored++;
      });
      t += dt;
    }
  }
  emit([banner("PLAY RECAP")], true);
  for (const host of hosts) {
    const c = counts.get(host)!;
    emit([
      `${host.padEnd(26)} : ok=${String(c.ok).padEnd(4)} changed=${String(c.changed).padEnd(4)} unreachable=0    failed=0    ` +
        `skipped=${String(c.skipped).padEnd(4)} rescued=0    ignored=${String(c.ignored).padEnd(4)}`,
    ]);
  }
  if (!log) {
    emit(["", stamp(t, 0.1), `${"=".repeat(79)} `]);
    for (const [name, s] of timings.sort((a, b) => b[1] - a[1]).slice(0, 20)) {
      emit([`${name} `.padEnd(70, "-") + ` ${s.toFixed(2)}s`.padStart(9, "-")]);
    }
  }
  return { text: `${out.join("\n")}\n`, lines, tasks };
}
