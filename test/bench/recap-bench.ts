/**
 * `npm run bench:recap`: throughput and memory of the recap text parser on a ~25 MB `-v` log,
 * then `--compare` of two kubespray-class runs (see compareSection), beside earlier parsers
 * (BASES).
 * `npm run bench:recap -- --compare-only` runs the second part alone.
 *
 * The log is synthesised from real ansible-playbook output shapes (the fixtures): 40 hosts,
 * tasks with `=> {json}` results, loops, multi-line indented debug payload, --diff hunks,
 * warnings, ignored failures, a PLAY RECAP and a profile_tasks summary. Each path is measured
 * in its own child process so that its peak RSS is its own:
 *   - playform parser through the CLI path (fs stream + streaming UTF-8 decoder + push()),
 *   - playform parser on a string already in memory (parseRecapText),
 *   - NAIVE BASELINE: split into lines, strip ANSI and run every regex on every line,
 *   - `grep -c '^TASK'` over the same file, as a reference for "reading the file at all".
 * Figures are printed, never asserted: speed depends on the machine.
 * RECAP_BENCH_KEEP=1 keeps the generated log (its folder is printed) for profiling.
 */
import { spawnSync } from "node:child_process";
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHUNK_BYTES, parseRecapFile, parseRecapStream } from "../../server/recap/cli";
import { parseRecapText } from "../../server/recap/parse-text";
import type { Recap } from "../../server/recap/types";
import { bigRunLog } from "./big-logs";

const MB = 1024 * 1024;
const TARGET_BYTES = 25 * MB;
const RUNS = 7;
const HOSTS = Array.from({ length: 40 }, (_, i) => `node${String(i + 1).padStart(3, "0")}.example.internal`);

// ---------------------------------------------------------------- synthetic -v log

const banner = (head: string): string => `${head} ${"*".repeat(Math.max(3, 79 - head.length))}`;
function stamp(t: number, dt: number): string {
  const hms = (s: number): string =>
    `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${(s % 60).toFixed(3).padStart(6, "0")}`;
  const msg = `Monday 30 November 2026  06:37:35 +0000 (${hms(dt)})       ${hms(t)} `;
  return `${msg}${"*".repeat(Math.max(3, 79 - msg.length))} `;
}
const cmdResult = (changed: boolean, cmd: string, out: string): string =>
  JSON.stringify({
    changed,
    cmd: ["bash", "-c", cmd],
    delta: "0:00:00.032496",
    end: "2026-11-30 06:42:10.766288",
    msg: "",
    rc: 0,
    start: "2026-11-30 06:42:10.733792",
    stderr: "",
    stderr_lines: [],
    stdout: out,
    stdout_lines: out.split("\n"),
  });

function generateLog(path: string): { tasks: number; lines: number } {
  const parts: string[] = [];
  let bytes = 0,
    tasks = 0,
    lines = 0,
    t = 0;
  const emit = (...ls: string[]): void => {
    for (const l of ls) {
      parts.push(l);
      bytes += Buffer.byteLength(l) + 1;
      lines++;
    }
  };
  const timings: [string, number][] = [];
  for (let play = 1; bytes < TARGET_BYTES; play++) {
    emit("", banner(`PLAY [Converge tier ${play}]`));
    for (let k = 0; k < 30 && bytes < TARGET_BYTES; k++, tasks++) {
      const name = `role${play % 7} : Step ${k} of tier ${play}${k % 9 === 0 ? " - with [brackets]" : ""}`;
      const dt = 0.2 + ((tasks * 7919) % 1000) / 250;
      t += dt;
      timings.push([name, dt]);
      emit("", banner(`TASK [${name}]`), stamp(t, dt));
      const kind = k % 6;
      for (const [i, h] of HOSTS.entries()) {
        if (kind === 0)
          emit(`changed: [${h}] => ${cmdResult(true, `systemctl restart app${k}`, "line1\nchanged: [node9]\nPLAY RECAP ***")}`);
        else if (kind === 1) {
          for (const item of ["curl", "git", "vim"])
            emit(`ok: [${h}] => (item=${item}) => {"ansible_loop_var": "item", "changed": false, "item": "${item}", "msg": "present"}`);
        } else if (kind === 2) {
          emit(
            `ok: [${h}] => {`,
            '    "msg": [',
            ...Array.from({ length: 6 }, (_, j) => `        "${h} fact ${j}: TASK [not a task] ok",`),
            "    ]",
            "}",
          );
        } else if (kind === 3) {
          emit(
            `--- before: /etc/app${k}.conf`,
            `+++ after: /etc/app${k}.conf`,
            "@@ -1,3 +1,3 @@",
            " [main]",
            "-workers = 2",
            "+workers = 4",
            " log = info",
          );
          emit(`changed: [${h}] => {"changed": true, "checksum": "0b6e4a5d", "dest": "/etc/app${k}.conf", "mode": "0644"}`);
        } else if (kind === 4)
          emit(
            `skipping: [${h}] => {"changed": false, "false_condition": "ansible_os_family == 'Windows'", "skip_reason": "Conditional result was False"}`,
          );
        else if (i % 10 === 0) emit(`fatal: [${h}]: FAILED! => ${cmdResult(true, "test -f /nope", "")}`, "...ignoring");
        else emit(`ok: [${h}] => ${cmdResult(false, "uptime", " 06:42:10 up 3 days,  2:01,  0 users")}`);
      }
      if (k === 15)
        emit(
          "[WARNING]: Module remote_tmp /root/.ansible/tmp did not exist and was created with a mode",
          "of 0700, this may cause issues when running as another user.",
        );
    }
  }
  emit("", banner("PLAY RECAP"));
  for (const h of HOSTS)
    emit(
      `${h.padEnd(26)} : ok=${tasks}   changed=${(tasks / 2) | 0}   unreachable=0    failed=0    skipped=${(tasks / 6) | 0}   rescued=0    ignored=9   `,
    );
  emit("", stamp(t, 0.1), `${"=".repeat(79)} `);
  for (const [name, s] of timings.sort((a, b) => b[1] - a[1]).slice(0, 20)) {
    emit(`${name} `.padEnd(70, "-") + ` ${s.toFixed(2)}s`.padStart(9, "-"));
  }
  writeFileSync(path, `${parts.join("\n")}\n`);
  return { tasks, lines };
}

// ---------------------------------------------------------------- NAIVE BASELINE (for comparison only)

/** Deliberately naive: the whole text split into an array, ANSI stripped and every regex run on every line. */
function naiveBaseline(text: string): { changed: number; failed: number; hosts: number; elapsed: number | null } {
  const banner = /^(PLAY|TASK|RUNNING HANDLER|CLEANUP TASK) \[(.*)\]( \[CHECK MODE\])? \*{3,}$/;
  const changed = /^changed: \[([^\]]+?)(?: -> [^\]]+)?\]/;
  const fatal = /^(?:fatal: \[([^\]]+?)(?: -> [^\]]+)?\]: FAILED!|failed: \[([^\]]+?)(?: -> [^\]]+)?\] \(item=)/;
  const row = /^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)/;
  const stampRe = /\((\d+):(\d\d):(\d\d\.\d+)\)\s+(\d+):(\d\d):(\d\d\.\d+) \*+\s*$/;
  const entry = /^(.*) -+ (\d+\.\d+)s$/;
  let task = "",
    elapsed: number | null = null;
  const changedTasks = new Set<string>(),
    failedTasks = new Set<string>(),
    hosts = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    // eslint-disable-next-line no-control-regex -- ESC starts every ANSI sequence
    const line = raw.replace(/\x1b\[[0-9;]*m/g, "");
    const b = banner.exec(line);
    if (b) task = b[2] ?? "";
    if (changed.test(line)) changedTasks.add(task);
    if (fatal.test(line)) failedTasks.add(task);
    const r = row.exec(line);
    if (r) hosts.add(r[1] ?? "");
    const s = stampRe.exec(line);
    if (s) elapsed = Number(s[4]) * 3600 + Number(s[5]) * 60 + Math.floor(Number(s[6]));
    entry.test(line);
  }
  return { changed: changedTasks.size, failed: failedTasks.size, hosts: hosts.size, elapsed };
}

// ---------------------------------------------------------------- measurement (child side)

type ChildReport = { seconds: number[]; maxRssMB: number; baseRssMB: number; heapPeakDeltaMB: number; summary: string };

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const heapMB = (): number => process.memoryUsage().heapUsed / MB;

async function child(mode: string, file: string): Promise<ChildReport> {
  gc();
  const baseRssMB = process.memoryUsage().rss / MB;
  const heap0 = heapMB();
  let heapPeak = heap0;
  const seconds: number[] = [];
  let summary = "";
  for (let i = 0; i < (mode === "once" ? 1 : RUNS); i++) {
    gc();
    if (mode === "stream" || mode === "once") {
      const t0 = performance.now();
      const recap = await parseRecapFile(file);
      seconds.push((performance.now() - t0) / 1000);
      summary = JSON.stringify(recap);
    } else {
      const text = readFileSync(file, "utf8"); // read time excluded: this path measures the parse
      heapPeak = Math.max(heapPeak, heapMB());
      const t0 = performance.now();
      const out = mode === "memory" ? parseRecapText(text) : naiveBaseline(text);
      seconds.push((performance.now() - t0) / 1000);
      heapPeak = Math.max(heapPeak, heapMB());
      summary = JSON.stringify(out);
    }
  }
  if (mode === "stream") {
    // One more pass sampling the heap at every chunk: what the CLI holds while it streams.
    gc();
    const sampled = async function* (): AsyncGenerator<Uint8Array> {
      for await (const chunk of createReadStream(file, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Uint8Array>) {
        heapPeak = Math.max(heapPeak, heapMB());
        yield chunk;
      }
    };
    await parseRecapStream(sampled());
  }
  return { seconds, maxRssMB: process.resourceUsage().maxRSS / 1024, baseRssMB, heapPeakDeltaMB: heapPeak - heap0, summary };
}

// ---------------------------------------------------------------- orchestration (parent side)

const SELF = fileURLToPath(import.meta.url);
const REPO = join(SELF, "../../..");

function runChild(mode: string, file: string): ChildReport {
  const r = spawnSync(process.execPath, [...process.execArgv, "--expose-gc", SELF, "--child", mode, file], {
    encoding: "utf8",
    maxBuffer: 64 * MB,
  });
  if (r.status !== 0) throw new Error(`bench child ${mode} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ChildReport;
}

function timeCommand(cmd: string, args: string[]): number[] {
  return Array.from({ length: RUNS }, () => {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { stdio: ["ignore", "ignore", "inherit"] });
    if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} exited ${r.status}`);
    return (performance.now() - t0) / 1000;
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "recap-bench-"));
  try {
    const file = join(dir, "run-v.log");
    const { tasks, lines } = generateLog(file);
    const size = statSync(file).size / MB;
    console.log(
      `recap parser benchmark: ${size.toFixed(1)} MB synthetic -v log, ${lines.toLocaleString("en")} lines, ${HOSTS.length} hosts, ${tasks} tasks (${RUNS} runs each, MB = 2^20 bytes)`,
    );
    // Shared machines make medians swing: say how busy this one was, so the figures can be read.
    const loadNote = (): string => `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} CPUs`;
    console.log(`machine: ${loadNote()} at start`);

    const stream = runChild("stream", file);
    const memory = runChild("memory", file);
    const naive = runChild("naive", file);
    if (stream.summary !== memory.summary) throw new Error("stream and in-memory results differ");
    const recap = JSON.parse(stream.summary) as { changed_tasks: unknown[]; hosts: unknown[]; elapsed_sec: number; status: string };
    console.log(
      `result: status=${recap.status}, ${recap.hosts.length} hosts, ${recap.changed_tasks.length} changed tasks, elapsed_sec=${recap.elapsed_sec} (stream == in-memory: yes)`,
    );
    console.log(`naive baseline found: ${naive.summary} (it skips the host check, ...ignoring and summary rules)`);

    // Memory-flat check: one streaming pass over the log and over 4 copies of it, each in a fresh process.
    const big = join(dir, "run-v-x4.log");
    const content = readFileSync(file);
    writeFileSync(big, Buffer.concat([content, content, content, content]));
    const once = runChild("once", file);
    const onceBig = runChild("once", big);
    rmSync(big);

    const grep = timeCommand("grep", ["-c", "^TASK", file]);
    const tsx = join(REPO, "node_modules/.bin/tsx"),
      cli = join(REPO, "server/recap/cli.ts");
    const startup = median(timeCommand(tsx, [cli, "--help"]));
    const e2e = median(timeCommand(tsx, [cli, file]));

    const rate = (s: number[]): string =>
      `${(size / median(s)).toFixed(0).padStart(5)} / ${(size / Math.min(...s)).toFixed(0).padStart(5)}`;
    const mem = (r: ChildReport): string =>
      `${r.maxRssMB.toFixed(0).padStart(4)} MB (base ${r.baseRssMB.toFixed(0)})  ${r.heapPeakDeltaMB.toFixed(1).padStart(6)} MB`;
    console.log(`\n${"path".padEnd(44)} MB/s median / best   peak RSS          heap peak Δ`);
    console.log(
      `${`playform parser, CLI path (stream, ${CHUNK_BYTES / 1024} KiB)`.padEnd(44)} ${rate(stream.seconds)}        ${mem(stream)}`,
    );
    console.log(`${"playform parser, in memory (parse only)".padEnd(44)} ${rate(memory.seconds)}        ${mem(memory)}`);
    console.log(`${"NAIVE BASELINE: split + regex every line".padEnd(44)} ${rate(naive.seconds)}        ${mem(naive)}`);
    console.log(`${"grep -c '^TASK' (reference)".padEnd(44)} ${rate(grep)}`);
    console.log(
      `memory-flat check, one streaming pass in a fresh process: peak RSS ${once.maxRssMB.toFixed(0)} MB for ${size.toFixed(0)} MB,` +
        ` ${onceBig.maxRssMB.toFixed(0)} MB for ${(4 * size).toFixed(0)} MB (process base ${once.baseRssMB.toFixed(0)} MB)`,
    );
    console.log(`machine: ${loadNote()} at end`);
    console.log(
      `CLI end to end (tsx cli.ts FILE > /dev/null): ${e2e.toFixed(2)} s; tsx start-up alone (cli.ts --help): ${startup.toFixed(2)} s`,
    );
    console.log(
      `\nplayform parser ${(size / median(stream.seconds)).toFixed(0)} MB/s (stream; ${(size / median(memory.seconds)).toFixed(0)} MB/s in memory)` +
        ` vs naive baseline ${(size / median(naive.seconds)).toFixed(0)} MB/s; grep -c over the same file ${(size / median(grep)).toFixed(0)} MB/s`,
    );
    await compareSection(dir);
  } finally {
    if (process.env.RECAP_BENCH_KEEP) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- kubespray-class --compare

/**
 * Earlier parsers to measure beside this checkout's, as `commit: what it was`: the parser before
 * the log-file work, and the first one that read log files, before it was profiled (its
 * `npm run recap` was still `tsx server/recap/cli.ts`). RECAP_BENCH_BASE=commit replaces them.
 * Without git or a commit, the bench says so and goes on.
 */
const BASES: Array<[string, string]> = process.env.RECAP_BENCH_BASE
  ? [[process.env.RECAP_BENCH_BASE, "RECAP_BENCH_BASE"]]
  : [
      ["e9ecf42", "before log files were read"],
      ["85360fd", "that read log files, before profiling"],
    ];
const E2E_RUNS = 5;

/** A commit's package.json and server/recap in dir (node_modules linked): `npm run --prefix dir recap` runs its CLI. */
function checkoutBase(commit: string, dir: string): string | null {
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync("sh", ["-c", `git -C "$0" archive "$1" package.json server/recap scripts | tar -x -C "$2"`, REPO, commit, dir]);
  if (archive.status !== 0) return null;
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  return dir;
}

type ParseReport = { ms: number[]; summary: string };

/** Child: parse each file RUNS times with the parser of `root` (the repo or a base's copy), in memory. */
async function parseChild(root: string, files: string[]): Promise<ParseReport[]> {
  const mod = (await import(join(root, "server/recap/parse-text.ts"))) as { parseRecapText: (text: string) => Recap };
  return files.map((f) => {
    const text = readFileSync(f, "utf8");
    for (let i = 0; i < 2; i++) mod.parseRecapText(text); // warm: the CLI's cold single parse is in the end-to-end figure
    const ms: number[] = [];
    let recap: Recap | null = null;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      recap = mod.parseRecapText(text);
      ms.push(performance.now() - t0);
    }
    const r = recap!;
    return {
      ms,
      summary: `status ${r.status}, ${r.plays.length} plays, ${r.changed_tasks.length} changed tasks, elapsed ${r.elapsed_sec}`,
    };
  });
}

function runParseChild(root: string, files: string[]): ParseReport[] {
  const r = spawnSync(process.execPath, [...process.execArgv, "--expose-gc", SELF, "--parse-child", root, ...files], {
    encoding: "utf8",
    maxBuffer: 64 * MB,
  });
  if (r.status !== 0) throw new Error(`bench parse child failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ParseReport[];
}

/** Runs after a first one that is not counted (tsx and scripts/recap.mjs fill their caches on a first run). */
function npmCompare(prefix: string, a: string, b: string): { seconds: number[]; out: string } {
  let out = "";
  const seconds = Array.from({ length: E2E_RUNS + 1 }, () => {
    const t0 = performance.now();
    const r = spawnSync("npm", ["run", "--silent", "--prefix", prefix, "recap", "--", "--compare", a, b], {
      encoding: "utf8",
      maxBuffer: 64 * MB,
    });
    if (r.status !== 0) throw new Error(`npm run recap --compare exited ${r.status}: ${r.stderr}`);
    out = r.stdout;
    return (performance.now() - t0) / 1000;
  }).slice(1);
  return { seconds, out };
}

/**
 * Two runs of one kubespray-class playbook (40 hosts, ~1,900 tasks, 120,000+ lines each: a
 * first run and a mostly idempotent second one, built from the recorded fixtures' task blocks),
 * as a terminal log with profile_tasks and as Ansible's log file: each log parsed in memory,
 * and `npm run --silent recap -- --compare A B` end to end, now and at each of BASES.
 */
async function compareSection(dir: string): Promise<void> {
  const logs: Record<string, { a: string; b: string; lines: number; tasks: number; mb: number }> = {};
  for (const format of ["stdout", "log_path"] as const) {
    const a = join(dir, `${format}-a.log`);
    const b = join(dir, `${format}-b.log`);
    const first = bigRunLog({ hosts: 40, minLines: 120_000, format, second: false });
    writeFileSync(a, first.text);
    writeFileSync(b, bigRunLog({ hosts: 40, minLines: 120_000, format, second: true }).text);
    logs[format] = { a, b, lines: first.lines, tasks: first.tasks, mb: statSync(a).size / MB };
  }
  const parsers: Array<[string, string | null]> = [["now", REPO]];
  for (const [commit] of BASES) parsers.push([commit, checkoutBase(commit, join(dir, `base-${commit}`))]);
  const label = { stdout: "terminal log (profile_tasks)", log_path: "log_path file" } as const;
  console.log(
    `\n--compare of two kubespray-class runs (40 hosts; a first run, then a mostly idempotent one; ${E2E_RUNS} end-to-end runs, ${RUNS} parses each):`,
  );
  for (const [format, l] of Object.entries(logs)) {
    console.log(
      `  ${label[format as keyof typeof label]}: ${l.lines.toLocaleString("en")} lines, ${l.tasks} tasks, ${l.mb.toFixed(1)} MB per log`,
    );
  }
  for (const [commit, what] of BASES) {
    const there = parsers.some(([who, root]) => who === commit && root !== null);
    console.log(`  ${commit}: ${there ? `the parser ${what}` : "not available (no git or no such commit)"}`);
  }
  console.log(`machine: load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} CPUs`);

  const rows: string[] = [];
  const summaries: string[] = [];
  for (const [format, l] of Object.entries(logs)) {
    const name = label[format as keyof typeof label];
    for (const [who, root] of parsers) {
      if (!root) continue;
      const [pa, pb] = runParseChild(root, [l.a, l.b]);
      const e2e = npmCompare(root, l.a, l.b);
      const cmp = JSON.parse(e2e.out) as {
        changed_in_both: unknown[];
        changed_only_first: unknown[];
        elapsed: { delta_sec: number | null };
      };
      rows.push(
        `${name.padEnd(30)} ${who.padEnd(8)} ${`${median(pa!.ms).toFixed(0)} + ${median(pb!.ms).toFixed(0)} ms`.padStart(14)}` +
          `   ${median(e2e.seconds).toFixed(2)} s (max ${Math.max(...e2e.seconds).toFixed(2)})`,
      );
      summaries.push(
        `${name}, ${who}: first run ${pa!.summary}; comparison: ${cmp.changed_in_both.length} changed again, ` +
          `${cmp.changed_only_first.length} only the first time, elapsed delta ${cmp.elapsed.delta_sec} s`,
      );
    }
  }
  console.log(
    `\n${"log".padEnd(30)} ${"parser".padEnd(5)} ${"parse A + B".padStart(14)}   npm run --silent recap -- --compare A B (median)`,
  );
  for (const row of rows) console.log(row);
  for (const line of summaries) console.log(line);
  console.log(`machine: load average ${loadavg()[0]?.toFixed(1)} at end`);
}

const [flag, ...rest] = process.argv.slice(2);
if (flag === "--child" && rest[0] && rest[1]) {
  void child(rest[0], rest[1]).then((r) => process.stdout.write(JSON.stringify(r)));
} else if (flag === "--parse-child" && rest[0]) {
  void parseChild(rest[0], rest.slice(1)).then((r) => process.stdout.write(JSON.stringify(r)));
} else if (flag === "--compare-only") {
  const dir = mkdtempSync(join(tmpdir(), "recap-bench-"));
  try {
    await compareSection(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  await main();
}
