/**
 * Many rows at once, straight into a migrated Playform database (SQLite or PostgreSQL), for
 * tests and benchmarks that need volume: 100,000 jobs take a second or two, where launching
 * them would take hours. Values are stored the way the app's Prisma client stores them
 * (SQLite: ISO 8601 text with `+00:00` for dates, JSON as text, booleans as 0/1), so the app
 * reads them back like its own rows.
 */
import Database from "better-sqlite3";
import pg from "pg";
import type { JobStatus } from "../../server/protocol/ui-messages";

type Value = string | number | boolean | Date | null | object;

/** Column → its PostgreSQL type (for the casts of a bulk insert). */
type Columns = Record<string, string>;

const COLUMNS: Record<"User" | "Runner" | "Form" | "Job" | "Host" | "HostRun", Columns> = {
  User: { id: "text", username: "text", passwordHash: "text", role: '"Role"' },
  Runner: { id: "text", name: "text", status: '"RunnerStatus"' },
  Form: { id: "text", name: "text", title: "text", definition: "jsonb", sourceDir: "text", updatedAt: "timestamp(3)" },
  Job: {
    formId: "text",
    formName: "text",
    userId: "text",
    runnerId: "text",
    status: '"JobStatus"',
    statusReason: "text",
    exitCode: "integer",
    values: "jsonb",
    extravars: "jsonb",
    manifest: "jsonb",
    runOptions: "jsonb",
    createdAt: "timestamp(3)",
    queuedAt: "timestamp(3)",
    startedAt: "timestamp(3)",
    finishedAt: "timestamp(3)",
    recap: "jsonb",
    recapSource: "text",
  },
  Host: { name: "text" },
  HostRun: {
    jobId: "integer",
    host: "text",
    formName: "text",
    userId: "text",
    status: "text",
    finishedAt: "timestamp(3)",
    ok: "integer",
    changed: "integer",
    unreachable: "integer",
    failed: "integer",
    skipped: "integer",
    rescued: "integer",
    ignored: "integer",
    changedTasks: "jsonb",
    options: "jsonb",
  },
};

function sqliteValue(value: Value | undefined): string | number | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "object") return JSON.stringify(value);
  return value;
}

function pgValue(value: Value | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const BATCH = 10_000;

async function insertRows(databaseUrl: string, table: keyof typeof COLUMNS, rows: Record<string, Value | undefined>[]): Promise<void> {
  const names = Object.keys(COLUMNS[table]);
  const quoted = names.map((n) => `"${n}"`).join(", ");
  if (databaseUrl.startsWith("file:")) {
    const db = new Database(databaseUrl.slice("file:".length), { fileMustExist: true });
    db.pragma("busy_timeout = 10000");
    try {
      const insert = db.prepare(`INSERT INTO "${table}" (${quoted}) VALUES (${names.map(() => "?").join(", ")})`);
      db.transaction(() => {
        for (const row of rows) insert.run(...names.map((n) => sqliteValue(row[n])));
      })();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const types = Object.values(COLUMNS[table]);
    const arrays = names.map((_, i) => `$${i + 1}::text[]`).join(", ");
    const casts = names.map((n, i) => `"${n}"::${types[i]}`).join(", ");
    const sql = `INSERT INTO "${table}" (${quoted}) SELECT ${casts} FROM unnest(${arrays}) AS t(${quoted})`;
    for (let start = 0; start < rows.length; start += BATCH) {
      const batch = rows.slice(start, start + BATCH);
      await client.query(
        sql,
        names.map((n) => batch.map((row) => pgValue(row[n]))),
      );
    }
  } finally {
    await client.end();
  }
}

export interface UserRow {
  id: string;
  username: string;
}

export interface RunnerRow {
  id: string;
  name: string;
}

export interface FormRow {
  id: string;
  name: string;
}

export interface JobRow {
  formId: string;
  formName: string;
  userId: string;
  runnerId: string | null;
  status: JobStatus;
  createdAt: Date;
  statusReason?: string | null;
  exitCode?: number | null;
  values?: Record<string, unknown>;
  queuedAt?: Date | null;
  startedAt?: Date | null;
  finishedAt?: Date | null;
  /** A recap already cached (Job.recap) and where it came from ("events" or "text"). */
  recap?: object | null;
  recapSource?: string | null;
}

export function insertUsers(databaseUrl: string, users: UserRow[]): Promise<void> {
  return insertRows(
    databaseUrl,
    "User",
    users.map((u) => ({ ...u, passwordHash: "not-a-hash: cannot log in", role: "user" })),
  );
}

/** Approved runners nobody connects as (their queued jobs stay queued). */
export function insertRunners(databaseUrl: string, runners: RunnerRow[]): Promise<void> {
  return insertRows(
    databaseUrl,
    "Runner",
    runners.map((r) => ({ ...r, status: "approved" })),
  );
}

export function insertForms(databaseUrl: string, forms: FormRow[]): Promise<void> {
  return insertRows(
    databaseUrl,
    "Form",
    forms.map((f) => ({
      ...f,
      title: f.name,
      definition: { playbook: "playbook.yml", fields: [] },
      sourceDir: `/nonexistent/${f.name}`,
      updatedAt: new Date(),
    })),
  );
}

/** Jobs in the given order (their ids ascend in it). */
export function insertJobs(databaseUrl: string, jobs: JobRow[]): Promise<void> {
  return insertRows(
    databaseUrl,
    "Job",
    jobs.map((j) => ({
      ...j,
      values: j.values ?? {},
      extravars: j.values ?? {},
      manifest: [],
      runOptions: {},
    })),
  );
}

export interface HostRunRow {
  jobId: number;
  host: string;
  formName: string;
  userId: string;
  status: string;
  finishedAt: Date;
  ok: number;
  changed: number;
  failed: number;
  unreachable: number;
  changedTasks: string[];
}

/** Hosts of finished runs and their names (server/data/hosts.ts), as the app writes them; jobs not marked recorded. */
export async function insertHostRuns(databaseUrl: string, runs: HostRunRow[]): Promise<void> {
  await insertRows(
    databaseUrl,
    "Host",
    [...new Set(runs.map((r) => r.host))].map((name) => ({ name })),
  );
  await insertRows(
    databaseUrl,
    "HostRun",
    runs.map((r) => ({ ...r, skipped: 0, rescued: 0, ignored: 0, options: null })),
  );
}
