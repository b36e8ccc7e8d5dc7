/**
 * Finished jobs with output (an events chunk, an output chunk, a runner line, task markers),
 * straight into a migrated SQLite database: thousands in a fraction of a second, for the
 * retention tests and benchmark. Stored the way the app stores them (server/data/job-output.ts:
 * dates as ISO text with `+00:00`, JSON as text), so the app reads them back like its own.
 */
import Database from "better-sqlite3";
import { formDefinitionSchema } from "../../server/forms/definition";
import { fullRunKeyOfDefinition } from "../../server/jobs/run-keys";
import type { JobStatus } from "../../server/protocol/ui-messages";

const iso = (at: Date) => at.toISOString().replace("Z", "+00:00");

/**
 * A run's structured events: one play, two tasks on two hosts, `changedOnce` changing only in
 * some runs; `results`, what the playbook handed back with set_stats (the stats event's custom).
 */
export function runEvents(changedOnce: boolean, results?: Record<string, unknown>): unknown[] {
  const result = (task: string, host: string, changed: boolean, ts: number) => ({
    v: 1,
    type: "task_result",
    ts,
    task,
    host,
    status: "ok",
    changed,
  });
  return [
    { v: 1, type: "playbook_start", ts: 1, playbook: "site.yml" },
    { v: 1, type: "play_start", ts: 2, name: "p", batch: 1, strategy: "linear" },
    { v: 1, type: "task_start", ts: 3, task: "a", name: "Always", kind: "task" },
    result("a", "h1", true, 4),
    result("a", "h2", true, 4.5),
    { v: 1, type: "task_start", ts: 5, task: "o", name: "Once", kind: "task" },
    result("o", "h1", changedOnce, 6),
    result("o", "h2", false, 6.5),
    {
      v: 1,
      type: "stats",
      ts: 7,
      hosts: ["h1", "h2"].map((host) => ({
        host,
        ok: 2,
        changed: host === "h1" && changedOnce ? 2 : 1,
        unreachable: 0,
        failed: 0,
        skipped: 0,
        rescued: 0,
        ignored: 0,
      })),
      ...(results ? { custom: { _run: results } } : {}),
    },
    { v: 1, type: "playbook_end", ts: 8, playbook: "site.yml" },
  ];
}

const TEXT = [
  "PLAY [p] ***********************************************************************",
  "",
  "TASK [Always] ******************************************************************",
  "changed: [h1]",
  "changed: [h2]",
  "",
  "TASK [Once] ********************************************************************",
  "ok: [h1]",
  "ok: [h2]",
  "",
  "PLAY RECAP *********************************************************************",
  "h1                         : ok=2    changed=1    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0",
  "h2                         : ok=2    changed=1    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0",
  "",
].join("\n");

export interface SeedJob {
  formName: string;
  status: JobStatus;
  createdAt: Date;
  finishedAt: Date | null;
  /** Output text repeated this many times (a bigger log); 1 by default. */
  textRepeat?: number;
}

/** The definition seedOwners gives each form. */
const seedDefinition = (name: string) => ({ name, title: name, playbook: "site.yml", fields: [] });

/** The run key of a full run of such a form, as a launch records it (server/jobs/run-kind.ts). */
function seedRunKey(formName: string): string {
  return fullRunKeyOfDefinition(formDefinitionSchema.parse(seedDefinition(formName)));
}

/** The user and forms the jobs belong to (once per database). */
export function seedOwners(file: string, forms: readonly string[]): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.prepare(`INSERT INTO "User" ("id", "username", "passwordHash", "role") VALUES ('u1', 'alice', 'x', 'admin')`).run();
    const form = db.prepare(
      `INSERT INTO "Form" ("id", "name", "title", "definition", "sourceDir", "updatedAt") VALUES (?, ?, ?, ?, '/nowhere', ?)`,
    );
    for (const name of forms) form.run(`form-${name}`, name, name, JSON.stringify(seedDefinition(name)), iso(new Date()));
  } finally {
    db.close();
  }
}

/** Jobs in the given order (ids ascend in it), each with 3 chunks and 3 markers; returns their ids. */
export function seedJobsWithOutput(file: string, jobs: readonly SeedJob[]): number[] {
  const db = new Database(file, { fileMustExist: true });
  db.pragma("busy_timeout = 10000");
  const ids: number[] = [];
  try {
    const job = db.prepare(
      `INSERT INTO "Job" ("formId", "formName", "userId", "status", "values", "extravars", "manifest", "createdAt", "startedAt", "finishedAt", "lastSeq", "lines", "outputIndexed", "runKey")
       VALUES (?, ?, 'u1', ?, '{}', '{}', '[]', ?, ?, ?, 3, ?, 1, ?)`,
    );
    const chunk = db.prepare(
      `INSERT INTO "JobChunk" ("jobId", "seq", "kind", "stream", "text", "data", "createdAt", "firstLine", "lineCount") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const marker = db.prepare(`INSERT INTO "JobMarker" ("jobId", "line", "kind", "name") VALUES (?, ?, ?, ?)`);
    db.transaction(() => {
      for (const [i, j] of jobs.entries()) {
        const text = TEXT.repeat(j.textRepeat ?? 1);
        const lines = text.split("\n").length - 1;
        const at = iso(j.createdAt);
        const id = Number(
          job.run(
            `form-${j.formName}`,
            j.formName,
            j.status,
            at,
            at,
            j.finishedAt ? iso(j.finishedAt) : null,
            lines + 1,
            seedRunKey(j.formName),
          ).lastInsertRowid,
        );
        ids.push(id);
        chunk.run(id, 1, "log", null, "job files ready\n", null, at, 1, 1);
        chunk.run(id, 2, "output", "stdout", text, null, at, 2, lines);
        chunk.run(id, 3, "events", null, null, JSON.stringify(runEvents(i % 2 === 0, { build: `b${i}` })), at, null, null);
        marker.run(id, 2, "play", "p");
        marker.run(id, 4, "task", "Always");
        marker.run(id, 12, "recap", "PLAY RECAP");
      }
    })();
  } finally {
    db.close();
  }
  return ids;
}

/** Audit events at the given times. */
export function seedAuditEvents(file: string, times: readonly Date[]): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    const insert = db.prepare(
      `INSERT INTO "AuditEvent" ("at", "actor", "action", "target", "outcome") VALUES (?, 'alice', 'job.launch', 'job:1', 'success')`,
    );
    db.transaction(() => {
      for (const at of times) insert.run(iso(at));
    })();
  } finally {
    db.close();
  }
}

/** Rows per table and the file's size (the WAL checkpointed first). */
export function databaseFigures(file: string): {
  chunks: number;
  markers: number;
  jobs: number;
  audit: number;
  bytes: number;
  freePages: number;
} {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    const pages = db.pragma("page_count", { simple: true }) as number;
    return {
      chunks: count("JobChunk"),
      markers: count("JobMarker"),
      jobs: count("Job"),
      audit: count("AuditEvent"),
      bytes: pageSize * pages,
      freePages: db.pragma("freelist_count", { simple: true }) as number,
    };
  } finally {
    db.close();
  }
}

export interface LongJob {
  /** Lines of output: `line <n>` each, but for the task banners and marked lines below. */
  lines: number;
  /** The job's owner (a user of the database) and form (a form of it). */
  userName: string;
  formName: string;
  /** Task banners at these lines (`TASK [name] ***`), each with its marker for "Jump to task". */
  tasks?: readonly { line: number; name: string }[];
  /** Lines whose text is this instead (a needle for the search). */
  texts?: readonly { line: number; text: string }[];
  /** Lines per stored chunk. */
  chunkLines?: number;
}

/**
 * One finished job of any number of lines, stored the way the app stores output (line-addressed
 * chunks, task markers), into a running app's SQLite database: millions of lines in seconds,
 * where a playbook printing them would take an hour. Returns the job's id.
 */
export function seedLongJob(file: string, job: LongJob): number {
  const db = new Database(file, { fileMustExist: true });
  db.pragma("busy_timeout = 10000");
  try {
    const owner = db.prepare(`SELECT "id" FROM "User" WHERE "username" = ?`).get(job.userName) as { id: string } | undefined;
    const form = db.prepare(`SELECT "id" FROM "Form" WHERE "name" = ?`).get(job.formName) as { id: string } | undefined;
    if (!owner || !form) throw new Error(`no user ${job.userName} or no form ${job.formName} in ${file}`);
    const special = new Map<number, string>();
    for (const task of job.tasks ?? []) special.set(task.line, `TASK [${task.name}] ${"*".repeat(60)}`);
    for (const { line, text } of job.texts ?? []) special.set(line, text);
    const perChunk = job.chunkLines ?? 10_000;
    const chunks = Math.ceil(job.lines / perChunk);
    const at = iso(new Date());
    let id = 0;
    db.transaction(() => {
      id = Number(
        db
          .prepare(
            `INSERT INTO "Job" ("formId", "formName", "userId", "status", "values", "extravars", "manifest", "createdAt", "startedAt", "finishedAt", "lastSeq", "lines", "outputIndexed")
             VALUES (?, ?, ?, 'success', '{}', '{}', '[]', ?, ?, ?, ?, ?, 1)`,
          )
          .run(form.id, job.formName, owner.id, at, at, at, chunks, job.lines).lastInsertRowid,
      );
      const chunk = db.prepare(
        `INSERT INTO "JobChunk" ("jobId", "seq", "kind", "stream", "text", "createdAt", "firstLine", "lineCount") VALUES (?, ?, 'output', 'stdout', ?, ?, ?, ?)`,
      );
      for (let c = 0; c < chunks; c++) {
        const first = c * perChunk + 1;
        const count = Math.min(perChunk, job.lines - first + 1);
        const text: string[] = [];
        for (let n = first; n < first + count; n++) text.push(special.get(n) ?? `line ${n}`);
        chunk.run(id, c + 1, `${text.join("\n")}\n`, at, first, count);
      }
      const marker = db.prepare(`INSERT INTO "JobMarker" ("jobId", "line", "kind", "name") VALUES (?, ?, 'task', ?)`);
      for (const task of job.tasks ?? []) marker.run(id, task.line, task.name);
    })();
    return id;
  } finally {
    db.close();
  }
}
