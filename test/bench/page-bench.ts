/**
 * `npm run bench:page`: the job page and live output at size, the design before the
 * line-addressed output (the baseline, commit 2a3329d) beside this checkout ("now").
 *
 * PAGE: a finished job printing N lines (a real playbook through the real local RTE), opened
 * in headless Chromium (1440×960) after logging in. Measured in the page's own clock:
 *   - first line: navigation start → `[data-testid="job-output"] [data-line="1"]` rendered with
 *     its text (checked against the stored line, so a placeholder row does not count), laid
 *     out but not necessarily inside the pane: the old page scrolls to the bottom as it loads;
 *   - end: the pane scrolled to its end → the job's last line (`lines` of GET /api/jobs/ID)
 *     rendered with its text and inside the pane;
 *   - top: the pane scrolled back to the top → line 1 rendered and inside the pane;
 *   - go to: the last line's number typed into "Go to line" → that line rendered and inside
 *     the pane (now only: the baseline page has no such box);
 *   - JS heap used after a forced GC (CDP), DOM elements, and the most DOM elements seen at
 *     any sample (every frame while waiting, and a sweep of the pane top to bottom).
 * --stored: "now"'s job is stored straight into its database (test/support/output-rows.ts
 * seedLongJob: `line <n>` lines in line-addressed chunks) instead of printed by a playbook,
 * for sizes no playbook prints in reasonable time: past the browser's cap on an element's
 * height (2^25 px, about 2.1 million rows), e.g. `--lines 10000000 --stored`.
 * The baseline page loads every chunk and renders every line: it runs at a smaller size
 * (--baseline-lines) and each step gives up after --timeout seconds; what happened is printed.
 *
 * LIVE: --jobs jobs at once, each followed by --watchers socket.io clients on `/ui`
 * (`job:follow` {v: 1, jobId, after: 0}), each job's playbook printing `tick N <epoch>` every
 * 50 ms (a debug loop with a pause: ansible-playbook shows loop items as they end, so the lines
 * really stream). Latency = when a follower receives the line − the timestamp in it (lines
 * printed before every follower was following are left out of the latency, not of the
 * delivery count). Also the CPU seconds and peak RSS of the app and its RTE, and the output
 * reads per stored batch (the app's shutdown line; the baseline reads once per follower per
 * batch by design). The floor: the same playbooks run by bare ansible-playbook, --jobs at once,
 * their stdout read directly.
 *
 * The baseline is built once into a checkout of 2a3329d in the temp folder (node_modules
 * hard-linked from this checkout, its own Prisma client and `npm run build`) and reused.
 * "now" is this checkout's build: run `npm run build` first.
 *
 *   npm run build && npm run bench:page -- [--lines 1000000] [--baseline-lines 20000]
 *     [--jobs 20] [--watchers 50] [--seconds 30] [--timeout 120] [--only page|live]
 *     [--no-baseline] [--rebuild-baseline] [--baseline-dir DIR] [--stored]
 */
import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import readline from "node:readline";
import { parseArgs } from "node:util";
import type { Browser, Page } from "playwright-core";
import { io, type Socket } from "socket.io-client";
import { launchChromium, logIn, newPage } from "../e2e/browser";
import { FINAL_STATUSES, apiClient, type ApiClient } from "../support/api";
import { seedLongJob } from "../support/output-rows";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { isRunningProcess } from "../support/processes";
import { stripAnsi } from "../../server/protocol/ansi";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FORMS_DIR = path.join(ROOT, "test/fixtures/forms-bench");
const BASELINE = "2a3329d";
const TICK_MS = 50;

// ---------------------------------------------------------------- options

/** A bad command line: said before anything starts. */
function usage(message: string): never {
  console.error(
    `page-bench: ${message}\nusage: npm run bench:page -- [--lines N] [--baseline-lines N] [--jobs N] [--watchers N] [--seconds N] [--timeout S] [--only page|live] [--no-baseline] [--rebuild-baseline] [--baseline-dir DIR] [--stored]`,
  );
  process.exit(2);
}

let parsed: ReturnType<typeof parseOptions>;
try {
  parsed = parseOptions();
} catch (error) {
  usage(error instanceof Error ? error.message : String(error));
}
const args = parsed.values;

function parseOptions() {
  return parseArgs({
    options: {
      lines: { type: "string", default: "1000000" },
      "baseline-lines": { type: "string", default: "20000" },
      jobs: { type: "string", default: "20" },
      watchers: { type: "string", default: "50" },
      seconds: { type: "string", default: "30" },
      timeout: { type: "string", default: "120" },
      only: { type: "string" },
      "no-baseline": { type: "boolean", default: false },
      "rebuild-baseline": { type: "boolean", default: false },
      stored: { type: "boolean", default: false },
      "baseline-dir": { type: "string", default: path.join(os.tmpdir(), `playform-bench-baseline-${BASELINE}`) },
    },
    strict: true,
  });
}

function positive(name: string, text: string): number {
  const n = Number(text.replace(/[_,]/g, ""));
  if (!Number.isInteger(n) || n < 1) usage(`--${name} must be a positive integer, not ${JSON.stringify(text)}`);
  return n;
}

const opts = {
  lines: positive("lines", args.lines),
  baselineLines: positive("baseline-lines", args["baseline-lines"]),
  jobs: positive("jobs", args.jobs),
  watchers: positive("watchers", args.watchers),
  seconds: positive("seconds", args.seconds),
  timeoutMs: positive("timeout", args.timeout) * 1000,
  page: args.only === undefined || args.only === "page",
  live: args.only === undefined || args.only === "live",
  baseline: !args["no-baseline"],
  rebuildBaseline: args["rebuild-baseline"],
  stored: args.stored,
  baselineDir: path.resolve(args["baseline-dir"]),
};
if (args.only !== undefined && args.only !== "page" && args.only !== "live")
  usage(`--only is page or live, not ${JSON.stringify(args.only)}`);

/** A failure the bench explains itself (caught at the end: printed without a stack, exit 1). */
class BenchError extends Error {}

function fail(message: string): never {
  throw new BenchError(message);
}

// ---------------------------------------------------------------- small helpers

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nowMs = () => performance.timeOrigin + performance.now();
const fmt = (n: number | undefined, digits = 2) => (n === undefined || !Number.isFinite(n) ? "—" : n.toFixed(digits));
const int = (n: number | undefined) => (n === undefined ? "—" : Math.round(n).toLocaleString("en"));
// The page's own rule (server/protocol/ansi.ts): also a colour code cut short at the end of a job.
const plain = (text: string) => stripAnsi(text).replace(/\s+/g, " ").trim();

function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function median(values: number[]): number | undefined {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** Resolves with the promise's value, or rejects after ms (the promise keeps running). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function table(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("   ")
      .trimEnd();
  console.log("");
  console.log(title);
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("   "));
  for (const row of rows) console.log(line(row));
}

// ---------------------------------------------------------------- the two builds

/** The newest modification time of the files under a folder (skipping generated code). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "generated" || entry.name === "node_modules") continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function checkNowBuild(): void {
  const server = path.join(ROOT, "dist/server.js");
  if (!fs.existsSync(server) || !fs.existsSync(path.join(ROOT, ".next/BUILD_ID"))) fail(`no build in ${ROOT}: run \`npm run build\` first`);
  const built = Math.min(fs.statSync(server).mtimeMs, fs.statSync(path.join(ROOT, ".next/BUILD_ID")).mtimeMs);
  const sources = Math.max(...["app", "components", "server"].map((d) => newestMtime(path.join(ROOT, d))));
  if (sources > built) console.log('warning: sources changed after the last `npm run build`: "now" measures the older build');
}

/**
 * A build of the baseline commit: a checkout of it (git archive, so the repository's worktree
 * list is left alone) with node_modules hard-linked from this checkout, its own Prisma client
 * (its schema predates the line columns) and `npm run build`. Kept and reused: a marker file
 * written after a successful build names the commit.
 */
async function baselineBuild(): Promise<string> {
  const dir = opts.baselineDir;
  const commit = (await execa("git", ["-C", ROOT, "rev-parse", `${BASELINE}^{commit}`])).stdout.trim();
  const marker = path.join(dir, ".page-bench-built");
  if (!opts.rebuildBaseline && fs.existsSync(marker) && fs.readFileSync(marker, "utf8").trim() === commit) {
    console.log(`baseline: reusing the build of ${BASELINE} in ${dir}`);
    return dir;
  }
  console.log(`baseline: building ${BASELINE} in ${dir} (once; a few minutes)`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const logFile = path.join(dir, ".page-bench-build.log");
  const step = async (what: string, file: string, argv: string[]) => {
    fs.appendFileSync(logFile, `\n$ ${file} ${argv.join(" ")}\n`);
    const run = await execa(file, argv, { cwd: dir, all: true, reject: false, env: { NEXT_TELEMETRY_DISABLED: "1" } });
    fs.appendFileSync(logFile, run.all ?? "");
    if (run.exitCode !== 0) {
      fail(`baseline ${what} failed (exit ${run.exitCode}); the end of ${logFile}:\n${(run.all ?? "").split("\n").slice(-30).join("\n")}`);
    }
  };
  await step("checkout", "bash", ["-c", `git -C '${ROOT}' archive '${commit}' | tar -x -C '${dir}'`]);
  // Hard links: the copy's own folders (so nothing the build adds lands in this checkout's
  // node_modules), the same files. Turbopack refuses a node_modules symlinked out of the project.
  await step("node_modules", "cp", ["-al", path.join(ROOT, "node_modules"), path.join(dir, "node_modules")]);
  await step("Prisma client", "bash", ["scripts/prisma-generate.sh"]);
  await step("build", "npm", ["run", "build"]);
  fs.writeFileSync(marker, `${commit}\n`);
  return dir;
}

async function startApp(root: string, env: Record<string, string> = {}): Promise<RunningPlayform> {
  try {
    return await startPlayform({ root, env: { PLAYFORM_FORMS_DIR: FORMS_DIR, ...env } });
  } catch (error) {
    fail(`the app in ${root} did not start: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A finished job of `lines` lines stored straight into the app's SQLite database (--stored). */
async function storeJob(app: RunningPlayform, api: ApiClient, lines: number): Promise<{ id: number; job: any }> {
  if (!app.databaseUrl.startsWith("file:")) fail("--stored needs the embedded SQLite database");
  // The form's row is written when the catalog is first read.
  await api.get("/api/forms");
  const id = seedLongJob(app.databaseUrl.slice("file:".length), { lines, userName: "admin", formName: "page-output" });
  const { job } = await api.get(`/api/jobs/${id}`);
  return { id, job };
}

async function runJob(api: ApiClient, form: string, values: Record<string, unknown>, timeoutMs: number): Promise<{ id: number; job: any }> {
  const id = await api.launch(form, values);
  const job = await api.waitForEnd(id, timeoutMs);
  if (job.status !== "success")
    fail(`job ${id} (${form}) ended ${job.status} (exit code ${job.exitCode}): ${job.statusReason ?? "no reason given"}`);
  return { id, job };
}

// ---------------------------------------------------------------- PAGE

interface LineProbe {
  n: number;
  /** The line's text without colour codes, whitespace collapsed ("" for an empty line). */
  text: string;
}

interface PageResult {
  lines: number;
  firstMs?: number;
  endMs?: number;
  topMs?: number;
  gotoMs?: number;
  heapMb?: number;
  dom?: number;
  maxDom?: number;
  /** The step that was given up on (timed out or failed); the steps after it did not run. */
  gaveUp?: "first" | "end" | "top" | "goto";
  notes: string[];
}

/** The job's line count and its first and last lines, from the line API (now) or the chunks (baseline). */
async function lineFacts(api: ApiClient, id: number, job: any): Promise<{ lines: number; first: LineProbe; last: LineProbe }> {
  if (typeof job.lines === "number") {
    const head = await api.get(`/api/jobs/${id}/lines?from=1&count=1`);
    const tail = await api.get(`/api/jobs/${id}/lines?tail=1`);
    return {
      lines: job.lines,
      first: { n: 1, text: plain(head.lines[0].text) },
      last: { n: tail.lines[0].n, text: plain(tail.lines[0].text) },
    };
  }
  // The old contract: chunks only. The old page splits each chunk into lines, a final
  // newline ending the last one (components/jobs/output-blocks.ts).
  let after = 0;
  let lines = 0;
  let first: string | undefined;
  let last = "";
  for (;;) {
    const page = await api.get(`/api/jobs/${id}/output?after=${after}&limit=1000`);
    for (const chunk of page.chunks as { seq: number; text: string }[]) {
      after = chunk.seq;
      if (chunk.text === "") continue;
      const split = (chunk.text.endsWith("\n") ? chunk.text.slice(0, -1) : chunk.text).split("\n");
      first ??= split[0]!;
      last = split[split.length - 1]!;
      lines += split.length;
    }
    if (page.chunks.length < 1000) break;
  }
  return { lines, first: { n: 1, text: plain(first ?? "") }, last: { n: lines, text: plain(last) } };
}

/**
 * In the page: is the line rendered with its text (and, when asked, inside the pane's visible
 * part)? Returns the page's clock (ms since navigation start) when it is, false otherwise.
 * Every call also counts the DOM elements, keeping the most seen in window.__benchMaxDom.
 */
function probeLine({ n, text, inView }: LineProbe & { inView: boolean }): number | false {
  const w = window as unknown as { __benchMaxDom?: number };
  w.__benchMaxDom = Math.max(w.__benchMaxDom ?? 0, document.getElementsByTagName("*").length);
  const pane = document.querySelector('[data-testid="job-output"]');
  const el = pane?.querySelector(`[data-line="${n}"]`);
  if (!pane || !el || el.getClientRects().length === 0) return false;
  const shown = (el.textContent ?? "").replace(/\s+/g, " ").trim();
  if (!shown.includes(text)) return false;
  if (inView) {
    const box = el.getBoundingClientRect();
    const view = pane.getBoundingClientRect();
    if (box.bottom <= view.top || box.top >= view.bottom) return false;
  }
  return performance.now();
}

async function waitForLine(page: Page, line: LineProbe, inView: boolean, timeoutMs: number): Promise<number> {
  const handle = await page.waitForFunction(probeLine, { ...line, inView }, { timeout: timeoutMs, polling: "raf" });
  return (await handle.jsonValue()) as number;
}

/** Scrolls the pane (to "end" or "top") and returns the page's clock at that moment. */
function scrollPane(page: Page, to: "end" | "top"): Promise<number> {
  return page.evaluate((where) => {
    const pane = document.querySelector<HTMLElement>('[data-testid="job-output"]');
    if (!pane) throw new Error("no job-output pane");
    pane.scrollTop = where === "end" ? pane.scrollHeight : 0;
    return performance.now();
  }, to);
}

/** Scrolls the pane top to bottom in ten steps, two frames each, counting DOM elements. */
function sweepPane(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const pane = document.querySelector<HTMLElement>('[data-testid="job-output"]');
    // No named helper in here: tsx would wrap it in a __name() call the page does not have.
    let most = 0;
    if (!pane) return most;
    for (let step = 0; step <= 10; step++) {
      pane.scrollTop = ((pane.scrollHeight - pane.clientHeight) * step) / 10;
      for (let frames = 0; frames < 2; frames++) await new Promise((resolve) => requestAnimationFrame(resolve));
      most = Math.max(most, document.getElementsByTagName("*").length);
    }
    pane.scrollTop = 0;
    return most;
  });
}

async function measurePage(browser: Browser, label: string, root: string, lines: number): Promise<PageResult> {
  // The default PROCESS_MAX_BUFFER (50 MB per stream) would cut a million coloured lines short.
  const app = await startApp(root, { PROCESS_MAX_BUFFER: String(256 * 2 ** 20) });
  try {
    const api = apiClient(app, await adminToken(app), { checkDocument: root === ROOT });
    const stored = opts.stored && root === ROOT;
    console.log(`${label}: ${stored ? "storing" : "running"} a job printing ${lines.toLocaleString("en")} lines…`);
    const started = performance.now();
    const { id, job } = stored
      ? await storeJob(app, api, lines)
      : await runJob(api, "page-output", { lines }, Math.max(300_000, lines * 2));
    const facts = await lineFacts(api, id, job);
    console.log(
      `${label}: job ${id} stored ${facts.lines.toLocaleString("en")} lines in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
        `(line 1 ${JSON.stringify(facts.first.text.slice(0, 40))}, line ${facts.last.n} ${JSON.stringify(facts.last.text.slice(0, 40))}); opening its page`,
    );
    const result: PageResult = { lines: facts.lines, notes: [] };
    const { context, page } = await newPage(browser, app.url);
    try {
      await logIn(page, "admin", app.adminPassword);
      await page.waitForURL((url) => !url.pathname.startsWith("/login"), { timeout: 30_000 });
      const cdp = await context.newCDPSession(page);
      const timeout = opts.timeoutMs;
      type Step = [NonNullable<PageResult["gaveUp"]>, string, () => Promise<void>];
      const steps: Step[] = [
        [
          "first",
          "show the first line",
          async () => {
            await page.goto(`/jobs/${id}`, { waitUntil: "commit" });
            result.firstMs = await waitForLine(page, facts.first, false, timeout);
          },
        ],
        [
          "end",
          "show the last line after scrolling to the end",
          async () => {
            const at = await within(scrollPane(page, "end"), timeout, "scrolling to the end");
            result.endMs = (await waitForLine(page, facts.last, true, timeout)) - at;
          },
        ],
        [
          "top",
          "show line 1 after scrolling back to the top",
          async () => {
            const at = await within(scrollPane(page, "top"), timeout, "scrolling to the top");
            result.topMs = (await waitForLine(page, facts.first, true, timeout)) - at;
          },
        ],
        ...(root === ROOT
          ? [
              <Step>[
                "goto",
                "show the last line typed into Go to line",
                async () => {
                  const box = page.getByLabel("Go to line");
                  await box.fill(String(facts.last.n));
                  const at = await page.evaluate(() => performance.now());
                  await box.press("Enter");
                  result.gotoMs = (await waitForLine(page, facts.last, true, timeout)) - at;
                },
              ],
            ]
          : []),
      ];
      for (const [key, what, run] of steps) {
        try {
          await run();
        } catch (error) {
          const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
          result.notes.push(
            /Timeout|no answer within/i.test(message) ? `did not ${what} within ${timeout / 1000} s` : `could not ${what}: ${message}`,
          );
          result.gaveUp = key;
          break;
        }
      }
      try {
        if (result.gaveUp) result.notes.push("its heap and DOM figures are those of the moment it was given up on");
        const sweepMax = !result.gaveUp ? await within(sweepPane(page), timeout, "sweeping the pane") : 0;
        await within(cdp.send("HeapProfiler.collectGarbage"), 30_000, "garbage collection");
        const heap = await within(cdp.send("Runtime.getHeapUsage"), 30_000, "heap usage");
        result.heapMb = heap.usedSize / 2 ** 20;
        const counts = await within(
          page.evaluate(() => ({
            dom: document.getElementsByTagName("*").length,
            most: (window as unknown as { __benchMaxDom?: number }).__benchMaxDom ?? 0,
          })),
          30_000,
          "counting DOM elements",
        );
        result.dom = counts.dom;
        result.maxDom = Math.max(counts.most, sweepMax, counts.dom);
      } catch (error) {
        result.notes.push(`no heap/DOM figures: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      }
    } finally {
      await within(context.close(), 30_000, "closing the page").catch(() => undefined);
    }
    return result;
  } finally {
    await app.stop();
  }
}

async function pagePart(baselineRoot: string | null): Promise<void> {
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (error) {
    fail(
      `Chromium did not start (${process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"}): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    const base = baselineRoot ? await measurePage(browser, `baseline (${BASELINE})`, baselineRoot, opts.baselineLines) : null;
    const now = await measurePage(browser, "now", ROOT, opts.lines);
    const s = (r: PageResult, key: PageResult["gaveUp"], ms: number | undefined) =>
      r.gaveUp === key ? `> ${opts.timeoutMs / 1000}` : ms === undefined ? "—" : (ms / 1000).toFixed(2);
    const mark = (value: number | undefined, limit: number) => (value === undefined ? "" : value <= limit ? " ✓" : " ✗");
    const rows: [string, string, (r: PageResult) => string, (r: PageResult) => string][] = [
      ["lines in the job", "", (r) => int(r.lines), () => ""],
      [
        "first line shown (s, from navigation)",
        "≤ 2 s",
        (r) => s(r, "first", r.firstMs),
        (r) => (r.gaveUp === "first" ? " ✗" : mark(r.firstMs, 2000)),
      ],
      [
        "last line after scrolling to the end (s)",
        "≤ 1 s",
        (r) => s(r, "end", r.endMs),
        (r) => (r.gaveUp === "end" ? " ✗" : mark(r.endMs, 1000)),
      ],
      [
        "line 1 after scrolling to the top (s)",
        "≤ 1 s",
        (r) => s(r, "top", r.topMs),
        (r) => (r.gaveUp === "top" ? " ✗" : mark(r.topMs, 1000)),
      ],
      ["last line by Go to line (s)", "≤ 1 s", (r) => s(r, "goto", r.gotoMs), (r) => (r.gaveUp === "goto" ? " ✗" : mark(r.gotoMs, 1000))],
      ["JS heap used after GC (MB)", "≤ 150 MB", (r) => fmt(r.heapMb, 1), (r) => mark(r.heapMb, 150)],
      ["DOM elements", "≤ 5,000", (r) => int(r.dom), (r) => mark(r.dom, 5000)],
      ["most DOM elements seen while scrolling", "≤ 5,000", (r) => int(r.maxDom), (r) => mark(r.maxDom, 5000)],
    ];
    table(
      `PAGE: a finished job opened in headless Chromium 1440×960 (each step given up after ${opts.timeoutMs / 1000} s)`,
      ["", "target", `baseline (${BASELINE})`, "now"],
      rows.map(([name, target, value, check]) => [name, target, base ? value(base) : "skipped", value(now) + check(now)]),
    );
    for (const [label, r] of [
      [`baseline (${BASELINE})`, base],
      ["now", now],
    ] as const) {
      for (const note of r?.notes ?? []) console.log(`${label}: ${note}`);
    }
  } finally {
    await browser.close();
  }
}

// ---------------------------------------------------------------- LIVE

const TICK = /tick (\d+) (\d+\.\d+)/g;
const ticks = () => opts.seconds * (1000 / TICK_MS);
/** Seconds the playbook waits before its first tick, so every follower is following by then. */
const WAIT_SECONDS = 2;

interface LiveResult {
  latenciesMs: number[];
  /** Share of the lines that reached every one of their job's watchers. */
  deliveredToAll: number;
  /** Median time between two ticks of a job, as printed (the playbook's real rhythm). */
  intervalMs?: number;
  duplicates: number;
  /** Watchers that had no job:status 60 s after following (the app did not keep up). */
  unanswered?: number;
  app?: { cpu: number; peakMb: number };
  rte?: { cpu: number; peakMb: number };
  readsPerBatch?: string;
  /** Output SELECTs the app ran during the run, counted at the SQLite driver (sql-reads.mjs). */
  sqlReads?: { reads: number; storeChecks: number };
  /** job:chunks messages the first watcher of each job received, summed over the jobs. */
  batchesDelivered?: number;
}

function summary(r: LiveResult) {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1], n: sorted.length };
}

const CLOCK_TICKS = Number((await execa("getconf", ["CLK_TCK"], { reject: false })).stdout) || 100;

/** User + system CPU seconds of one process (not its children). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The process's peak resident memory so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : NaN;
}

async function rtePid(appPid: number): Promise<number | undefined> {
  const { stdout } = await execa("ps", ["-o", "pid=,args=", "--ppid", String(appPid)], { reject: false });
  const line = stdout.split("\n").find((l) => /rte/.test(l));
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
}

/** Per-job tick intervals from the ticks' own timestamps. */
function medianInterval(stamps: Map<number, Map<number, number>>): number | undefined {
  const gaps: number[] = [];
  for (const byTick of stamps.values()) {
    const sorted = [...byTick.entries()].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i++)
      if (sorted[i]![0] === sorted[i - 1]![0] + 1) gaps.push((sorted[i]![1] - sorted[i - 1]![1]) * 1000);
  }
  return median(gaps);
}

/** The floor: bare ansible-playbook, --jobs at once, each one's stdout read as it comes. */
async function liveBare(): Promise<LiveResult> {
  const formDir = path.join(FORMS_DIR, "live-ticks");
  const latencies: number[] = [];
  const stamps = new Map<number, Map<number, number>>();
  let seen = 0;
  await Promise.all(
    Array.from({ length: opts.jobs }, async (_, job) => {
      const child = execa(
        "ansible-playbook",
        ["-i", "inventory.ini", "-e", JSON.stringify({ ticks: ticks(), wait_seconds: WAIT_SECONDS }), "playbook.yml"],
        {
          cwd: formDir,
          env: { PYTHONUNBUFFERED: "1", ANSIBLE_FORCE_COLOR: "1", ANSIBLE_RETRY_FILES_ENABLED: "False" },
          reject: false,
          buffer: false,
          stdin: "ignore",
        },
      );
      const mine = new Map<number, number>();
      stamps.set(job, mine);
      readline.createInterface({ input: child.stdout! }).on("line", (line) => {
        const at = nowMs();
        for (const m of line.matchAll(TICK)) {
          const ts = Number(m[2]);
          mine.set(Number(m[1]), ts);
          latencies.push(at - ts * 1000);
          seen++;
        }
      });
      const run = await child;
      if (run.exitCode !== 0) fail(`bare ansible-playbook of live-ticks exited ${run.exitCode}`);
    }),
  );
  return { latenciesMs: latencies, deliveredToAll: seen / (opts.jobs * ticks()), intervalMs: medianInterval(stamps), duplicates: 0 };
}

interface Watcher {
  socket: Socket;
  jobId: number;
  got: Set<number>;
  followed: boolean;
}

function connectWatcher(url: string, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // forceNew: a connection of its own, as each browser tab has (socket.io multiplexes otherwise).
    const socket = io(`${url}/ui`, { auth: { token }, transports: ["websocket"], forceNew: true, reconnection: false, timeout: 60_000 });
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", (error) => reject(new Error(`a watcher could not connect: ${error.message}`)));
  });
}

/**
 * The job's end, polled as a watcher's browser would: a request the overloaded app drops (a
 * refused or reset connection) is asked again; only the app's death ends the wait early.
 */
async function waitForEndUnderLoad(label: string, app: RunningPlayform, api: ApiClient, id: number, timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let dropped = 0;
  for (;;) {
    try {
      const answer = await api.call("GET", `/api/jobs/${id}`);
      if (answer.status === 200 && FINAL_STATUSES.includes(answer.json.job.status)) {
        if (dropped > 0) console.log(`${label}: ${dropped} polls of job ${id} were dropped by the app and asked again`);
        return answer.json.job;
      }
    } catch (error) {
      if (!isRunningProcess(app.pid)) fail(`${label}: the app died while job ${id} ran: ${String(error)}\n${app.output().slice(-3000)}`);
      dropped++;
    }
    if (Date.now() > deadline) fail(`${label}: job ${id} did not end within ${Math.round(timeoutMs / 1000)} s`);
    await sleep(1000);
  }
}

async function livePlayform(label: string, root: string): Promise<LiveResult> {
  const expected = ticks();
  const sqlReadsFile = path.join(os.tmpdir(), `page-bench-sql-reads-${process.pid}-${label.replace(/\W+/g, "-")}.json`);
  fs.rmSync(sqlReadsFile, { force: true });
  const app = await startApp(root, {
    PLAYFORM_LOCAL_RTE_CAPACITY: String(Math.max(4, opts.jobs)),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${path.join(import.meta.dirname, "sql-reads.mjs")}`.trim(),
    PLAYFORM_BENCH_SQL_READS: sqlReadsFile,
  });
  const watchers: Watcher[] = [];
  const latencies: number[] = [];
  const stamps = new Map<number, Map<number, number>>();
  let duplicates = 0;
  let batchesDelivered = 0;
  const result: LiveResult = { latenciesMs: latencies, deliveredToAll: 0, duplicates: 0 };
  try {
    const token = await adminToken(app);
    const api = apiClient(app, token, { checkDocument: root === ROOT });
    const rte = await rtePid(app.pid);
    if (!rte) fail(`${label}: the app's local RTE process was not found`);

    // Every watcher connected before any job runs: connecting is not what is measured.
    const total = opts.jobs * opts.watchers;
    console.log(`${label}: connecting ${total.toLocaleString("en")} watchers…`);
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < total; i += 100) {
        sockets.push(...(await Promise.all(Array.from({ length: Math.min(100, total - i) }, () => connectWatcher(app.url, token)))));
      }
    } finally {
      // Closed with the others at the end even when a later one failed to connect.
      for (const socket of sockets) watchers.push({ socket, jobId: 0, got: new Set(), followed: false });
    }

    const cpu0 = { app: cpuSeconds(app.pid), rte: cpuSeconds(rte) };
    console.log(`${label}: ${opts.jobs} jobs of ${expected} ticks, ${opts.watchers} watchers each…`);
    const ids: number[] = [];
    for (let j = 0; j < opts.jobs; j++) ids.push(await api.launch("live-ticks", { ticks: expected, wait_seconds: WAIT_SECONDS }));
    // Only lines printed once every watcher follows count for the latency (all count as delivered).
    let readyAt = Infinity;
    watchers.forEach((watcher, i) => {
      const jobId = ids[Math.floor(i / opts.watchers)]!;
      watcher.jobId = jobId;
      const byTick = stamps.get(jobId) ?? new Map<number, number>();
      stamps.set(jobId, byTick);
      watcher.socket.on("job:status", (message: { jobId?: number }) => {
        if (message?.jobId === jobId) watcher.followed = true;
      });
      watcher.socket.on("job:chunks", (message: { jobId?: number; chunks?: { text: string }[] }) => {
        if (message?.jobId !== jobId) return;
        if (i % opts.watchers === 0) batchesDelivered++;
        const at = nowMs();
        for (const chunk of message.chunks ?? []) {
          for (const m of chunk.text.matchAll(TICK)) {
            const n = Number(m[1]);
            const ts = Number(m[2]) * 1000;
            if (watcher.got.has(n)) {
              duplicates++;
              continue;
            }
            watcher.got.add(n);
            byTick.set(n, ts / 1000);
            if (ts >= readyAt) latencies.push(at - ts);
          }
        }
      });
      watcher.socket.emit("job:follow", { v: 1, jobId, after: 0 });
    });
    // A design that cannot answer every follow in time is measured as it is: the watchers left
    // without an answer are counted (and their lines count as not delivered), not a failure.
    const followDeadline = Date.now() + 60_000;
    while (watchers.some((w) => !w.followed) && Date.now() < followDeadline) await sleep(20);
    result.unanswered = watchers.filter((w) => !w.followed).length;
    if (result.unanswered > 0) console.log(`${label}: ${result.unanswered} watchers got no job:status within 60 s of following`);
    readyAt = nowMs();

    for (const id of ids) {
      const job = await waitForEndUnderLoad(label, app, api, id, opts.seconds * 10_000 + 300_000);
      if (job.status !== "success") {
        fail(`${label}: job ${id} (live-ticks) ended ${job.status} (exit code ${job.exitCode}): ${job.statusReason ?? "no reason given"}`);
      }
    }
    // The last batch is stored at the job's end: give it a moment to reach everyone.
    const graceUntil = Date.now() + 15_000;
    while (watchers.some((w) => w.got.size < expected) && Date.now() < graceUntil) await sleep(100);
    result.app = { cpu: cpuSeconds(app.pid) - cpu0.app, peakMb: peakRssMb(app.pid) };
    result.rte = { cpu: cpuSeconds(rte) - cpu0.rte, peakMb: peakRssMb(rte) };

    let toAll = 0;
    for (const id of ids) {
      const mine = watchers.filter((w) => w.jobId === id);
      for (let n = 1; n <= expected; n++) if (mine.every((w) => w.got.has(n))) toAll++;
    }
    result.deliveredToAll = toAll / (ids.length * expected);
    result.intervalMs = medianInterval(stamps);
    result.duplicates = duplicates;
    result.batchesDelivered = batchesDelivered;
  } finally {
    for (const watcher of watchers) watcher.socket.disconnect();
    await app.stop();
  }
  const stats = /live output since start: (\d+) batches stored[^;]*; followers' output reads: (\d+) shared[^,]*, (\d+) catch-up/.exec(
    app.output(),
  );
  if (stats) {
    const [batches, shared, catchUp] = [Number(stats[1]), Number(stats[2]), Number(stats[3])];
    result.readsPerBatch = `${fmt((shared + catchUp) / Math.max(1, batches))} (${shared}+${catchUp}/${batches})`;
  }
  try {
    result.sqlReads = JSON.parse(fs.readFileSync(sqlReadsFile, "utf8"));
  } catch {
    console.log(`${label}: no SQL read counts (the app did not write ${sqlReadsFile} at exit)`);
  }
  fs.rmSync(sqlReadsFile, { force: true });
  return result;
}

async function livePart(baselineRoot: string | null): Promise<void> {
  console.log(`live: ${opts.jobs} jobs × ${opts.watchers} watchers, a line every ${TICK_MS} ms for ${opts.seconds} s`);
  console.log("floor: bare ansible-playbook…");
  const bare = await liveBare();
  const base = baselineRoot ? await livePlayform(`baseline (${BASELINE})`, baselineRoot) : null;
  const now = await livePlayform("now", ROOT);
  const cols: [string, LiveResult | null, boolean][] = [
    ["bare ansible-playbook", bare, false],
    [`baseline (${BASELINE})`, base, true],
    ["now", now, true],
  ];
  const cell = (r: LiveResult | null, f: (r: LiveResult) => string) => (r ? f(r) : "skipped");
  const ms = (f: (s: ReturnType<typeof summary>) => number | undefined) => (r: LiveResult) => fmt(f(summary(r)), 0);
  const rows: [string, (r: LiveResult) => string, boolean][] = [
    ["latency p50 (ms)", ms((s) => s.p50), false],
    ["latency p95 (ms)", ms((s) => s.p95), false],
    ["latency max (ms)", ms((s) => s.max), false],
    ["lines timed (× watchers)", (r) => int(summary(r).n), false],
    ["lines delivered to all watchers", (r) => `${(r.deliveredToAll * 100).toFixed(2)} %`, false],
    ["duplicate lines received", (r) => int(r.duplicates), true],
    ["watchers without job:status 60 s after following", (r) => int(r.unanswered ?? 0), true],
    ["tick interval, median (ms)", (r) => fmt(r.intervalMs, 0), false],
    ["app CPU (s)", (r) => fmt(r.app?.cpu, 1), true],
    ["RTE CPU (s)", (r) => fmt(r.rte?.cpu, 1), true],
    ["app peak RSS (MB)", (r) => fmt(r.app?.peakMb, 0), true],
    ["RTE peak RSS (MB)", (r) => fmt(r.rte?.peakMb, 0), true],
    [
      "output SELECTs at the driver (store checks apart)",
      (r) => (r.sqlReads ? `${int(r.sqlReads.reads)} (+${int(r.sqlReads.storeChecks)})` : "n/a"),
      true,
    ],
    ["batches delivered (job:chunks to one watcher per job)", (r) => int(r.batchesDelivered ?? 0), true],
    [
      "output SELECTs per delivered batch",
      (r) => (r.sqlReads ? fmt(r.sqlReads.reads / Math.max(1, r.batchesDelivered ?? 0), 2) : "n/a"),
      true,
    ],
    ["output reads per stored batch (the app's own count)", (r) => r.readsPerBatch ?? "not counted by this version", true],
  ];
  table(
    `LIVE: ${opts.jobs} jobs at once, ${opts.watchers} socket.io watchers each, latency = received − printed`,
    ["", ...cols.map(([name]) => name)],
    rows.map(([name, f, playformOnly]) => [name, ...cols.map(([, r, isPlayform]) => (playformOnly && !isPlayform ? "—" : cell(r, f)))]),
  );
  console.log(
    "(CPU from the first launch until every line was delivered; output SELECTs counted at the SQLite driver for the whole run, pages and\n" +
      "catch-up included, per job:chunks message one watcher of each job received; the app's own count = (shared + catch-up) / batches stored)",
  );
}

// ---------------------------------------------------------------- main

try {
  checkNowBuild();
  console.log(
    `page-bench on ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const baselineRoot = opts.baseline ? await baselineBuild() : null;
  if (opts.page) await pagePart(baselineRoot);
  if (opts.live) await livePart(baselineRoot);
  process.exit(0);
} catch (error) {
  console.error(
    `\npage-bench failed: ${error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
}
