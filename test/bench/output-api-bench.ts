/**
 * The line-addressed output API at real size: a finished job printing N lines (default
 * 1,000,000) through the real app and RTE, then windows anywhere, the tail, search, the task
 * index and the raw log download, each timed. Side by side with the way the job page read
 * output before (every chunk, page after page, from line 1), which is what any window cost then.
 *
 *   npm run build && npm run bench:output-api -- [LINES]
 */
import path from "node:path";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { apiClient } from "../support/api";
import { adminToken, startPlayform } from "../support/playform";

const LINES = Number(process.argv[2] ?? 1_000_000);
const FORMS = path.resolve(import.meta.dirname, "../fixtures/forms-output");

const rssMb = async (pid: number) => Number((await execa("ps", ["-o", "rss=", "-p", String(pid)])).stdout.trim()) / 1024;
const pct = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

// The default PROCESS_MAX_BUFFER (50 MB per stream) would cut a million coloured lines short.
const app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS, PROCESS_MAX_BUFFER: String(256 * 2 ** 20) } });
try {
  const token = await adminToken(app);
  const api = apiClient(app, token);
  const timed = async <T>(what: () => Promise<T>): Promise<[T, number]> => {
    const started = performance.now();
    const value = await what();
    return [value, performance.now() - started];
  };

  console.log(
    `output API benchmark: a finished job printing ${LINES.toLocaleString("en")} lines (real app, RTE, ansible-playbook, SQLite)`,
  );
  const [id, runMs] = await timed(async () => {
    const jobId = await api.launch("big-output", { lines: LINES });
    const job = await api.waitForEnd(jobId, 1_800_000);
    if (job.status !== "success") throw new Error(`job ended ${job.status}: ${job.statusReason}`);
    return jobId as number;
  });
  const { job } = await api.get(`/api/jobs/${id}`);
  const total = job.lines as number;
  console.log(
    `job ${id}: ${total.toLocaleString("en")} lines, run and stored in ${(runMs / 1000).toFixed(1)} s; app RSS ${(await rssMb(app.pid)).toFixed(0)} MB`,
  );

  const windows: number[] = [];
  for (let i = 0; i < 50; i++) {
    const from = 1 + Math.floor(Math.random() * (total - 500));
    const [window, ms] = await timed(() => api.get(`/api/jobs/${id}/lines?from=${from}&count=500`));
    if (window.lines.length !== 500) throw new Error(`window at ${from} returned ${window.lines.length} lines`);
    windows.push(ms);
  }
  const [, tailMs] = await timed(() => api.get(`/api/jobs/${id}/lines?tail=500`));
  const [tasks, tasksMs] = await timed(() => api.get(`/api/jobs/${id}/tasks`));
  const [rare, rareMs] = await timed(() =>
    api.get(`/api/jobs/${id}/search?q=${encodeURIComponent(`line ${String(Math.floor(LINES * 0.9)).padStart(8, "0")} of`)}`),
  );
  const [none, noneMs] = await timed(() => api.get(`/api/jobs/${id}/search?q=no%20such%20text%20anywhere`));
  const [frequent, frequentMs] = await timed(() => api.get(`/api/jobs/${id}/search?q=big%20output`));
  const rssBefore = await rssMb(app.pid);
  let bytes = 0;
  const [, logMs] = await timed(async () => {
    const response = await fetch(`${app.url}/api/jobs/${id}/log`, { headers: { authorization: `Bearer ${token}` } });
    const reader = response.body!.getReader();
    for (let piece = await reader.read(); !piece.done; piece = await reader.read()) bytes += piece.value.length;
  });
  const rssAfter = await rssMb(app.pid);

  // Before: the page read every chunk from the first, page after page, before showing any line.
  const [oldLines, oldMs] = await timed(async () => {
    let after = 0;
    let count = 0;
    for (;;) {
      const page = await api.get(`/api/jobs/${id}/output?after=${after}&limit=1000`);
      for (const chunk of page.chunks as { seq: number; lineCount: number }[]) {
        after = chunk.seq;
        count += chunk.lineCount;
      }
      if (page.chunks.length < 1000) return count;
    }
  });

  const row = (what: string, ms: number, note = "") => console.log(`${what.padEnd(52)} ${ms.toFixed(0).padStart(8)} ms  ${note}`);
  console.log("");
  console.log(`${"request".padEnd(52)} ${"time".padStart(11)}`);
  row("a window of 500 lines anywhere (p50 of 50)", pct(windows, 50));
  row("a window of 500 lines anywhere (p95 of 50)", pct(windows, 95));
  row("the last 500 lines (tail)", tailMs);
  row("task index", tasksMs, `${tasks.tasks.length} markers`);
  row("search, one match", rareMs, `${rare.matches.length} match (target ≤ 1,000 ms)`);
  row("search, no match", noneMs, `${none.matches.length} matches (target ≤ 1,000 ms)`);
  row("search, every line matches (stops at 1,000)", frequentMs, `${frequent.matches.length} matches, truncated ${frequent.truncated}`);
  row(
    "raw log download, streamed",
    logMs,
    `${(bytes / 2 ** 20).toFixed(1)} MB; app RSS ${rssBefore.toFixed(0)} -> ${rssAfter.toFixed(0)} MB`,
  );
  row(
    "before: reading every chunk to reach any line",
    oldMs,
    `${oldLines.toLocaleString("en")} lines in ${Math.ceil(oldLines / 1000)}+ requests`,
  );
} finally {
  await app.stop();
}
