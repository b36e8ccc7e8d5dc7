/**
 * `npm run bench`: throughput and memory of the recap text parser on a ~25 MB `-v` log.
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
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHUNK_BYTES, parseRecapFile, parseRecapStream } from "../../server/recap/cli";
import { parseRecapText } from "../../server/recap/parse-text";

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
  } finally {
    if (process.env.RECAP_BENCH_KEEP) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

const [flag, mode, file] = process.argv.slice(2);
if (flag === "--child" && mode && file) {
  void child(mode, file).then((r) => process.stdout.write(JSON.stringify(r)));
} else {
  await main();
}
