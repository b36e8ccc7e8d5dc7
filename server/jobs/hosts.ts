/**
 * Hosts (docs/api.md, "Hosts"): every host that appears in a finished run's recap, with its
 * result in each run, for `GET /api/hosts` and `GET /api/hosts/NAME`.
 *
 * - Written from the job's recap (cachedJobRecap: events, else the text): its PLAY RECAP rows
 *   (an incomplete run: the results seen before it stopped) and, per host, the tasks that
 *   changed it (the recap's changed_results; a text recap names changed tasks without their
 *   hosts, so only a single-host run gets them).
 * - When: right after a run ends (the lifecycle's final move), off the move's path; and by the
 *   catch-up, which one node at a time runs now and then, for finished runs whose hosts are not written:
 *   those that ended before hosts were kept (the backfill), on a node that stopped before it
 *   wrote them, or whose recap changed because items arrived after the end.
 * - Read in the reader's scope (server/access/policy.ts jobScopeOf): a host seen only in runs
 *   they may not read is a 404, as an unknown one.
 * - A drift check's hosts also move their drift (server/recap/drift.ts): its diff lines are read
 *   from the check's events; hosts it newly finds drifted send the form's `drift` notification.
 */
import { DomainError } from "../errors";
import { jobScopeOf, type Viewer } from "../access/policy";
import { getJobView, RUN_KIND, type JobStatus } from "../data/jobs";
import {
  findJobForHosts,
  firstTaskLines,
  latestHostRun,
  latestHostRuns,
  listHostNames,
  listHostDrifts,
  listHostRuns,
  listJobsMissingHosts,
  markHostsRecorded,
  replaceJobHosts,
  type HostRunInput,
  type DriftInput,
  type HostRunPosition,
  type StoredDrift,
  type StoredHostRun,
} from "../data/hosts";
import { diffsByHost, driftTasksOf, type DriftTask } from "../recap/drift";
import { loadJobEvents } from "./events";
import { enqueueJobNotifications } from "./notify";
import { ADVISORY_LOCKS, withAdvisoryLock } from "../data/advisory-lock";
import { loggerFor } from "../logging/logger";
import type { Recap, RecapHostRow } from "../recap/types";
import { FINAL_STATUSES, isFinalStatus } from "./lifecycle";
import { cachedJobRecap } from "./recap-cache";
import { runOptionsOfJob, type RunOptionsView } from "./run-kind";

const log = loggerFor({ component: "hosts" });

/** A host name longer than this is not kept (an index entry has a size limit; no real host name is this long). */
export const MAX_HOST_NAME = 255;
/** At most this many hosts of one run are kept (a recap forged by a playbook could name millions). */
export const MAX_HOSTS_PER_RUN = 10_000;

/** The rows a recap gives: one per host, counters and the tasks that changed it. Pure. */
export function hostRowsOfRecap(recap: Recap): { rows: HostRunInput[]; dropped: number } {
  const source: RecapHostRow[] = recap.hosts.length > 0 ? recap.hosts : (recap.partial_hosts ?? []);
  const changedBy = new Map<string, string[]>();
  const addChanged = (host: string, task: string) => {
    const tasks = changedBy.get(host) ?? [];
    if (!tasks.includes(task)) tasks.push(task);
    changedBy.set(host, tasks);
  };
  if (recap.changed_results) {
    for (const entry of [...recap.changed_results.changed, ...recap.changed_results.ignored_failures]) {
      for (const host of entry.hosts) addChanged(host, entry.task);
    }
  } else if (source.length === 1) {
    for (const task of recap.changed_tasks) addChanged(source[0]!.host, task);
  }
  const rows = new Map<string, HostRunInput>();
  let dropped = 0;
  for (const row of source) {
    if (rows.has(row.host)) continue;
    if (row.host.length === 0 || row.host.length > MAX_HOST_NAME || rows.size >= MAX_HOSTS_PER_RUN) {
      dropped += 1;
      continue;
    }
    const { host, ok, changed, unreachable, failed, skipped, rescued, ignored } = row;
    rows.set(host, { host, ok, changed, unreachable, failed, skipped, rescued, ignored, changedTasks: changedBy.get(host) ?? [] });
  }
  return { rows: [...rows.values()], dropped };
}

/**
 * Writes the hosts of a finished job from its recap (a preview: marked, nothing written).
 * Never throws: a job's end does not fail for its hosts; the catch-up tries again.
 */
export async function recordJobHosts(jobId: number): Promise<void> {
  try {
    const job = await findJobForHosts(jobId);
    if (!job || !isFinalStatus(job.status)) return;
    if (job.kind !== RUN_KIND) {
      await markHostsRecorded(jobId);
      return;
    }
    const [{ recap }, view] = await Promise.all([cachedJobRecap(jobId), getJobView(jobId)]);
    const { rows, dropped } = hostRowsOfRecap(recap);
    if (dropped > 0)
      log().warn(
        { jobId },
        `job ${jobId}: ${dropped} host(s) of its recap not kept (an empty name, one over ${MAX_HOST_NAME} characters, or past ${MAX_HOSTS_PER_RUN} hosts)`,
      );
    const options = view ? runOptionsOfJob(view) : null;
    const drift = job.drift ? await driftInputOf(jobId, job.status, rows) : undefined;
    const { newlyDrifted } = await replaceJobHosts(job, job.finishedAt ?? new Date(), rows, options, drift);
    if (newlyDrifted.length > 0) {
      log().info({ jobId }, `job ${jobId}: drift check found ${newlyDrifted.length} host(s) newly drifted`);
      await enqueueJobNotifications(jobId, "drift");
    }
  } catch (error) {
    log().error({ jobId, err: error }, `job ${jobId}: writing its hosts failed (the catch-up tries again)`);
  }
}

/** A drift check's tasks per host with their diff lines (from its events), and whether it ran to its end. */
async function driftInputOf(jobId: number, status: JobStatus, rows: readonly HostRunInput[]): Promise<DriftInput> {
  const diffs = diffsByHost(await loadJobEvents(jobId));
  const tasksByHost = new Map<string, DriftTask[]>();
  for (const row of rows) if (row.changed > 0) tasksByHost.set(row.host, driftTasksOf(row.changedTasks, diffs.get(row.host)));
  return { tasksByHost, complete: status === "success" || status === "failed" };
}

const CATCH_UP_BATCH = 100;

/**
 * Writes the hosts of finished jobs that lack them, `CATCH_UP_BATCH` at a time, until none is
 * left or `stop()` says so. Returns how many jobs it went through.
 */
export async function recordMissingHosts(stop: () => boolean = () => false): Promise<number> {
  let done = 0;
  // By id: a job that failed to write stays missing until the next pass, not met again in this one.
  let afterId = 0;
  for (;;) {
    const ids = await listJobsMissingHosts(FINAL_STATUSES, afterId, CATCH_UP_BATCH);
    if (ids.length === 0) return done;
    for (const id of ids) {
      if (stop()) return done;
      await recordJobHosts(id);
      // One job at a time, yielding between them: a backfill of many jobs must not starve requests.
      await new Promise((resolve) => setImmediate(resolve));
    }
    done += ids.length;
    afterId = ids[ids.length - 1]!;
    if (ids.length === CATCH_UP_BATCH) log().info(`hosts catch-up: ${done} finished job(s) written so far`);
  }
}

/** How often each node looks for finished jobs whose hosts are not written. */
export const HOSTS_CATCH_UP_MS = 60_000;

/** The catch-up on a timer (server/index.ts): at start (the backfill), then every HOSTS_CATCH_UP_MS. */
export function startHostsCatchUp(intervalMs = HOSTS_CATCH_UP_MS): () => void {
  let stopped = false;
  let running = false;
  const tick = () => {
    if (running || stopped) return;
    running = true;
    // One node at a time: a backfill of many jobs done once, not by every node over again.
    withAdvisoryLock(ADVISORY_LOCKS.hostsCatchUp, () => recordMissingHosts(() => stopped))
      .then((count) => {
        if (count) log().info(`hosts catch-up: wrote the hosts of ${count} finished job(s)`);
      })
      .catch((error: unknown) => log().error({ err: error }, "hosts catch-up failed"))
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(tick, 1_000);
  const timer = setInterval(tick, intervalMs);
  first.unref();
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(timer);
  };
}

// ---------------------------------------------------------------------------------------------
// Reading

export interface HostResult {
  ok: number;
  changed: number;
  failed: number;
  unreachable: number;
}

/** A host's drift as a reader sees it: the newest of the forms' drifts they may read. */
export interface HostDriftView {
  /** When the first check of its run of checks that found changes ended (ISO 8601). */
  since: string;
  /** The newest drift check that found changes. */
  jobId: number;
  form: string;
  /** Every form whose drift checks find this host drifted now (the reader may read), newest first. */
  forms: string[];
}

export interface HostSummary {
  name: string;
  lastJob: { id: number; form: string; status: JobStatus; finishedAt: string };
  lastResult: HostResult;
  /** Null: in line, or never drift-checked (in the reader's scope). */
  drift: HostDriftView | null;
}

/** A host's page: its drift with the tasks that would change it and their diff lines. */
export interface HostDetailDrift extends HostDriftView {
  tasks: DriftTask[];
}

export interface HostRunView {
  jobId: number;
  form: string;
  status: JobStatus;
  finishedAt: string;
  options: RunOptionsView | null;
  result: HostResult & { skipped: number; rescued: number; ignored: number };
  changedTasks: string[];
  /** The first output line of each changed task (`/jobs/ID#L<line>`); null when not known (the output removed). */
  changedTaskLines: (number | null)[];
}

function driftViewOf(drifts: readonly StoredDrift[]): HostDetailDrift | null {
  const newest = drifts[0];
  if (!newest) return null;
  return {
    since: newest.since.toISOString(),
    jobId: newest.jobId,
    form: newest.formName,
    forms: drifts.map((drift) => drift.formName),
    tasks: newest.tasks,
  };
}

/** A host's summary; its drift as the list shows it (without the tasks). */
function summaryOf(run: StoredHostRun, drift: HostDetailDrift | null): HostSummary {
  return {
    name: run.host,
    lastJob: { id: run.jobId, form: run.formName, status: run.status as JobStatus, finishedAt: run.finishedAt.toISOString() },
    lastResult: { ok: run.ok, changed: run.changed, failed: run.failed, unreachable: run.unreachable },
    drift: drift && { since: drift.since, jobId: drift.jobId, form: drift.form, forms: drift.forms },
  };
}

function runView(run: StoredHostRun, lines: ReadonlyMap<string, number>): HostRunView {
  const { ok, changed, failed, unreachable, skipped, rescued, ignored } = run;
  return {
    jobId: run.jobId,
    form: run.formName,
    status: run.status as JobStatus,
    finishedAt: run.finishedAt.toISOString(),
    options: (run.options as RunOptionsView | null) ?? null,
    result: { ok, changed, failed, unreachable, skipped, rescued, ignored },
    changedTasks: run.changedTasks,
    changedTaskLines: run.changedTasks.map((task) => lines.get(`${run.jobId}\u0000${task}`) ?? null),
  };
}

// Cursors: base64url of a small JSON list, opaque to clients; anything else is a 400.
const MAX_CURSOR_LENGTH = 800;

function encodeCursor(payload: unknown[]): string {
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

function decodeCursor(text: string): unknown[] | null {
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  try {
    const payload: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    return Array.isArray(payload) ? payload : null;
  } catch {
    return null;
  }
}

function badCursor(): never {
  throw new DomainError("bad_request", "cursor: not a cursor this list gave (pass back nextCursor as it was)", {
    cursor: "not a cursor this list gave",
  });
}

function hostListCursor(text: string): string {
  const payload = decodeCursor(text);
  if (!payload || payload.length !== 2 || payload[0] !== "h" || typeof payload[1] !== "string") badCursor();
  return payload[1];
}

function hostRunsCursor(text: string): HostRunPosition {
  const payload = decodeCursor(text);
  if (!payload || payload.length !== 3 || payload[0] !== "r") badCursor();
  const [, ms, jobId] = payload;
  if (!Number.isSafeInteger(ms) || !Number.isSafeInteger(jobId) || (jobId as number) < 1) badCursor();
  return { finishedAt: new Date(ms as number), jobId: jobId as number };
}

/** One page of hosts the viewer sees, by name; `q` a part of the name (any case). */
export async function listHosts(
  viewer: Viewer,
  query: { q?: string; cursor?: string; limit: number },
): Promise<{ hosts: HostSummary[]; nextCursor: string | null }> {
  const scope = await jobScopeOf(viewer);
  const after = query.cursor === undefined ? undefined : hostListCursor(query.cursor);
  const names = await listHostNames(scope, { q: query.q, after, limit: query.limit + 1 });
  const page = names.slice(0, query.limit);
  const [latest, drifts] = await Promise.all([latestHostRuns(scope, page), listHostDrifts(scope, page)]);
  const hosts = page
    .map((name) => latest.get(name))
    .filter((run): run is StoredHostRun => run !== undefined)
    .map((run) => summaryOf(run, driftViewOf(drifts.filter((drift) => drift.host === run.host))));
  const last = page[page.length - 1];
  return { hosts, nextCursor: names.length > query.limit && last !== undefined ? encodeCursor(["h", last]) : null };
}

/** A host the viewer sees and its runs, newest first; 404 when they see none of its runs. */
export async function hostDetail(
  viewer: Viewer,
  name: string,
  query: { cursor?: string; limit: number },
): Promise<{ host: Omit<HostSummary, "drift"> & { drift: HostDetailDrift | null }; runs: HostRunView[]; nextCursor: string | null }> {
  const scope = await jobScopeOf(viewer);
  const latest = await latestHostRun(scope, name);
  if (!latest) throw new DomainError("not_found", `no host named "${name}" in the runs you can see`);
  const before = query.cursor === undefined ? undefined : hostRunsCursor(query.cursor);
  const runs = await listHostRuns(scope, name, { before, limit: query.limit + 1 });
  const page = runs.slice(0, query.limit);
  const last = page[page.length - 1];
  const [lines, drifts] = await Promise.all([
    firstTaskLines(page.map((run) => ({ jobId: run.jobId, names: run.changedTasks }))),
    listHostDrifts(scope, [name]),
  ]);
  const drift = driftViewOf(drifts);
  return {
    host: { ...summaryOf(latest, drift), drift },
    runs: page.map((run) => runView(run, lines)),
    nextCursor: runs.length > query.limit && last ? encodeCursor(["r", last.finishedAt.getTime(), last.jobId]) : null,
  };
}
