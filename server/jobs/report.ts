/**
 * The report across runs (the lab's last step): 2 to 20 runs of one form, in the order the
 * reader chose, side by side. Per task whether it changed and its time in each run, per host
 * its PLAY RECAP counts in each run, per artifact key (set_stats) its value in each run. As
 * JSON for scripts, and as Markdown and CSV to paste into a ticket or a spreadsheet.
 *
 * Tasks are told apart as the idempotence report does (server/recap/idempotence.ts): by play,
 * the play's occurrence and the task's name, from each run's events (its cached summary,
 * server/jobs/run-summary.ts). A run without events (launched before the callback plugin, or
 * its output removed by retention) is matched by task name from its recap: changed when the
 * recap lists the task among changed_tasks, unknown (null) otherwise, as the text recap
 * names only what changed and profile_tasks' slowest tasks.
 */
import { DomainError } from "../errors";
import { findVisibleJob, type Viewer } from "../access/policy";
import { getJobKind } from "../data/jobs";
import { hostRows } from "../recap/compare";
import { csvField, type TaskChanges } from "../recap/idempotence";
import { HOST_COUNTERS, type HostCounter, type Recap } from "../recap/types";
import type { JobView } from "../protocol/ui-messages";
import { isFinalStatus } from "./lifecycle";
import { cachedJobRecap } from "./recap-cache";
import { runOptionsOfJob, type RunOptionsView } from "./run-kind";
import { knownArtifacts, type JobArtifacts } from "./artifacts";
import { runSummaryOf, type RunSummary } from "./run-summary";

export const REPORT_MIN_JOBS = 2;
export const REPORT_MAX_JOBS = 20;

export type HostCounts = Record<HostCounter, number>;

export interface ReportJob {
  id: number;
  status: string;
  finishedAt: string | null;
  /** How it was run; null for a job launched before plans were kept. */
  options: RunOptionsView | null;
  /** The same in a few words, as the documents show it: "full run", "--tags containerd --check, environment k8s". */
  run: string;
  /** The playbook's time from the events (to the millisecond), else profile_tasks' elapsed; null when neither is known. */
  playbook_sec: number | null;
}

export interface ReportTask {
  /** The play's name; null for a task known only from a run without events. */
  play: string | null;
  task: string;
  /** Per run: changed on some host, ran without a change, or null (did not run, or not known). */
  changed: (boolean | null)[];
  /** Per run: the task's seconds, or null when it did not run or its time is not known. */
  sec: (number | null)[];
}

export interface ReportHost {
  host: string;
  /** Per run: its PLAY RECAP counts (what an incomplete run got so far), or null when the host was not in the run. */
  runs: (HostCounts | null)[];
}

export interface ReportArtifact {
  key: string;
  /** Per run: the value the playbook set (set_stats), or null when it set none or it is not known. */
  values: unknown[];
}

export interface RunReport {
  form: string;
  jobs: ReportJob[];
  tasks: ReportTask[];
  hosts: ReportHost[];
  artifacts: ReportArtifact[];
}

/** One run as the report reads it. */
export interface ReportRunInput {
  job: ReportJob;
  recap: Recap;
  /** From the run's events; null when it has none. */
  summary: RunSummary | null;
  /** What the playbook handed back (the summary's, or what retention kept); null when not known. */
  artifacts: JobArtifacts | null;
}

/**
 * The ids of a report (the query's `jobs`, parsed by its contract) checked for what the
 * contract does not say: at least two, none twice; a 400 saying what is wrong otherwise.
 */
export function checkReportJobs(ids: readonly number[]): readonly number[] {
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) refuse(`job ${twice} is named twice`);
  if (ids.length < REPORT_MIN_JOBS) refuse(`give ${REPORT_MIN_JOBS} to ${REPORT_MAX_JOBS} jobs, not ${ids.length}`);
  return ids;
}

/** A 400 about the query's `jobs`. */
function refuse(message: string): never {
  throw new DomainError("bad_request", `jobs: ${message}`, { jobs: message });
}

/**
 * The report over jobs `ids` of form `formName`, in that order. Each must be a finished run of
 * the form that the viewer may see: one they may not see is a 404, as a job that does not
 * exist; one of another form, a preview or one still running is a 400 naming it.
 */
export async function formReport(viewer: Viewer, formName: string, ids: readonly number[]): Promise<RunReport> {
  const runs: ReportRunInput[] = [];
  for (const id of ids) {
    const job = (await findVisibleJob(viewer, id))?.job;
    if (!job) throw new DomainError("not_found", `no job ${id}`);
    if (job.form !== formName) refuse(`job ${id} is a run of form "${job.form}", not of "${formName}"`);
    if ((await getJobKind(id)) === "preview") refuse(`job ${id} is a preview: it ran nothing`);
    if (!isFinalStatus(job.status)) refuse(`job ${id} has not finished (${job.status})`);
    const { recap } = await cachedJobRecap(id);
    // Once the output is gone: the tasks from the recap, the artifacts retention kept.
    const summary = job.outputPurgedAt ? null : await runSummaryOf(id, job.lastSeq);
    const artifacts = summary ? summary.artifacts : await knownArtifacts(job);
    runs.push({ job: reportJob(job, recap), recap, summary, artifacts });
  }
  return { form: formName, ...buildRunReport(runs) };
}

function reportJob(job: JobView, recap: Recap): ReportJob {
  const options = runOptionsOfJob(job);
  const playbook_sec = typeof recap.playbook_sec === "number" ? recap.playbook_sec : recap.elapsed_sec;
  return { id: job.id, status: job.status, finishedAt: job.finishedAt, options, run: describeOptions(options), playbook_sec };
}

function taskKey(play: string | null, occurrence: number | null, task: string): string {
  return `${play ?? ""}\u0000${occurrence ?? 0}\u0000${task}`;
}

/** The matrix of the runs, in their order (pure: the unit tests build it from recaps and summaries). */
export function buildRunReport(runs: readonly ReportRunInput[]): Omit<RunReport, "form"> {
  const n = runs.length;
  const empty = <T>(): T[] => Array.from({ length: n }, () => null as T);

  // Tasks, in the order each first appears in the runs as given.
  const rows = new Map<string, ReportTask>();
  const byName = new Map<string, ReportTask[]>();
  const rowOf = (play: string | null, occurrence: number | null, task: string): ReportTask => {
    const key = taskKey(play, occurrence, task);
    let row = rows.get(key);
    if (!row) {
      row = { play, task, changed: empty(), sec: empty() };
      rows.set(key, row);
      byName.set(task, [...(byName.get(task) ?? []), row]);
    }
    return row;
  };
  runs.forEach((run, i) => {
    if (!run.summary) return;
    for (const t of run.summary.tasks as readonly TaskChanges[]) {
      const row = rowOf(t.play, t.play_occurrence, t.task);
      if (!t.ran) continue;
      row.changed[i] = t.changed_hosts.length > 0;
      row.sec[i] = t.sec;
    }
  });
  // Runs without events: what their recap says, by task name.
  runs.forEach((run, i) => {
    if (run.summary) return;
    const seconds = new Map<string, number>();
    for (const t of run.recap.slowest_tasks) seconds.set(t.task, Math.round(((seconds.get(t.task) ?? 0) + t.seconds) * 1000) / 1000);
    const changed = new Set(run.recap.changed_tasks);
    for (const name of new Set([...run.recap.changed_tasks, ...seconds.keys()])) {
      for (const row of byName.get(name) ?? [rowOf(null, null, name)]) {
        row.changed[i] = changed.has(name) ? true : null;
        row.sec[i] = seconds.get(name) ?? null;
      }
    }
  });

  // Hosts, sorted by name (code points, as everywhere in the recap).
  const hosts = new Map<string, ReportHost>();
  runs.forEach((run, i) => {
    for (const row of hostRows(run.recap)) {
      let host = hosts.get(row.host);
      if (!host) hosts.set(row.host, (host = { host: row.host, runs: empty() }));
      const counts = {} as HostCounts;
      for (const c of HOST_COUNTERS) counts[c] = row[c];
      host.runs[i] = counts;
    }
  });

  // Artifacts: the run's set_stats keys, in the order each first appears.
  const artifacts = new Map<string, ReportArtifact>();
  runs.forEach((run, i) => {
    for (const [key, value] of Object.entries(run.artifacts?.artifacts ?? {})) {
      let artifact = artifacts.get(key);
      if (!artifact) artifacts.set(key, (artifact = { key, values: empty() }));
      artifact.values[i] = value ?? null;
    }
  });

  return {
    jobs: runs.map((run) => run.job),
    tasks: [...rows.values()],
    hosts: [...hosts.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0)),
    artifacts: [...artifacts.values()],
  };
}

/** How a run was run, in a few words: "full run", "--tags containerd --check", "-vv, environment k8s". */
export function describeOptions(options: RunOptionsView | null): string {
  if (options === null) return "not recorded";
  const parts: string[] = [];
  if (options.tags.length > 0) parts.push(`--tags ${options.tags.join(",")}`);
  if (options.skipTags.length > 0) parts.push(`--skip-tags ${options.skipTags.join(",")}`);
  if (options.limit !== null) parts.push(`--limit ${options.limit}`);
  if (options.check) parts.push("--check");
  if (options.diff) parts.push("--diff");
  if (options.verbosity > 0) parts.push(`-${"v".repeat(options.verbosity)}`);
  const run = parts.length === 0 ? "full run" : parts.join(" ");
  return options.environment === null ? run : `${run}, environment ${options.environment}`;
}

function taskCell(changed: boolean | null, sec: number | null): string {
  if (changed === null) return sec === null ? "–" : `${sec} s`;
  const word = changed ? "**changed**" : "ok";
  return sec === null ? word : `${word} ${sec} s`;
}

function hostCell(counts: HostCounts | null): string {
  if (counts === null) return "–";
  return HOST_COUNTERS.filter((c) => counts[c] > 0 || c === "ok" || c === "changed" || c === "failed" || c === "unreachable")
    .map((c) => `${c}=${counts[c]}`)
    .join(" ");
}

/**
 * A table cell of text a playbook, an inventory or a user wrote: one line, its pipes escaped,
 * and no HTML (a ticket system renders Markdown's inline HTML).
 */
function mdCell(text: string): string {
  return text
    .replace(/\r\n|\r|\n/g, " ")
    .replaceAll("\\", "\\\\")
    .replaceAll("|", "\\|")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;");
}

/** A value of set_stats as one line of JSON in a code span (a backtick in it makes the span longer). */
function mdValue(value: unknown): string {
  if (value === null || value === undefined) return "–";
  const json = JSON.stringify(value).replaceAll("|", "\\u007c");
  const fence = json.includes("`") ? "`` " : "`";
  return `${fence}${json}${fence === "`" ? "`" : " ``"}`;
}

/** The report as a Markdown document: the runs, then tasks, hosts and artifacts as tables with a column per run. */
export function reportMarkdown(report: RunReport): string {
  const head = (first: string[]) => {
    const cells = [...first, ...report.jobs.map((job) => `#${job.id}`)];
    return [`| ${cells.join(" | ")} |`, `|${cells.map(() => "---").join("|")}|`];
  };
  const row = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const lines = [`# Report: ${mdCell(report.form)}, ${report.jobs.length} runs`, ""];
  lines.push(...head(["Run"]));
  lines.push(row(["status", ...report.jobs.map((job) => job.status)]));
  lines.push(row(["finished", ...report.jobs.map((job) => job.finishedAt ?? "–")]));
  lines.push(row(["run", ...report.jobs.map((job) => mdCell(job.run))]));
  lines.push(row(["playbook time", ...report.jobs.map((job) => (job.playbook_sec === null ? "–" : `${job.playbook_sec} s`))]));
  lines.push("", `## Tasks (${report.tasks.length})`, "");
  if (report.tasks.length === 0) lines.push("No task is known for these runs.");
  else {
    lines.push(...head(["Play", "Task"]));
    for (const t of report.tasks) {
      lines.push(row([t.play === null ? "–" : mdCell(t.play), mdCell(t.task), ...t.changed.map((c, i) => taskCell(c, t.sec[i] ?? null))]));
    }
  }
  lines.push("", `## Hosts (${report.hosts.length})`, "");
  if (report.hosts.length === 0) lines.push("No host is known for these runs.");
  else {
    lines.push(...head(["Host"]));
    for (const h of report.hosts) lines.push(row([mdCell(h.host), ...h.runs.map(hostCell)]));
  }
  lines.push("", `## Artifacts (${report.artifacts.length})`, "");
  if (report.artifacts.length === 0) lines.push("The playbook handed back nothing (set_stats) in these runs.");
  else {
    lines.push(...head(["Key"]));
    for (const a of report.artifacts) lines.push(row([mdCell(a.key), ...a.values.map(mdValue)]));
  }
  return lines.join("\n") + "\n";
}

/**
 * The report as CSV (RFC 4180, CRLF line ends, formula-safe fields: csvField), in long form
 * for a spreadsheet: `section,play,name,field` then a column per run (`job_ID`). Sections:
 * `job` (status, finished_at, options, playbook_sec), `task` (changed, sec), `host` (one row
 * per counter), `artifact` (the value as JSON).
 */
export function reportCsv(report: RunReport): string {
  const lines = [["section", "play", "name", "field", ...report.jobs.map((job) => `job_${job.id}`)].map(csvField).join(",")];
  const add = (section: string, play: string | null, name: string | null, field: string, values: (string | number | boolean | null)[]) =>
    lines.push([section, play, name, field, ...values].map(csvField).join(","));
  add(
    "job",
    null,
    null,
    "status",
    report.jobs.map((job) => job.status),
  );
  add(
    "job",
    null,
    null,
    "finished_at",
    report.jobs.map((job) => job.finishedAt),
  );
  add(
    "job",
    null,
    null,
    "options",
    report.jobs.map((job) => describeOptions(job.options)),
  );
  add(
    "job",
    null,
    null,
    "playbook_sec",
    report.jobs.map((job) => job.playbook_sec),
  );
  for (const t of report.tasks) {
    add("task", t.play, t.task, "changed", t.changed);
    add("task", t.play, t.task, "sec", t.sec);
  }
  for (const h of report.hosts)
    for (const c of HOST_COUNTERS)
      add(
        "host",
        null,
        h.host,
        c,
        h.runs.map((r) => (r === null ? null : r[c])),
      );
  for (const a of report.artifacts)
    add(
      "artifact",
      null,
      a.key,
      "value",
      a.values.map((v) => (v === null || v === undefined ? null : JSON.stringify(v))),
    );
  return lines.map((line) => `${line}\r\n`).join("");
}
