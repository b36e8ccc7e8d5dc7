/**
 * Starts a real Playform (the production bundle in dist/, its local RTE process, a fresh
 * SQLite database or the given DATABASE_URL) for integration and browser tests.
 */
import Database from "better-sqlite3";
import { execa, type ResultPromise } from "execa";
import pg from "pg";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface RunningPlayform {
  url: string;
  /** The app process (its local RTE is a child of it); a new one after restart(). */
  readonly pid: number;
  databaseUrl: string;
  adminPassword: string;
  dataDir: string;
  /** Everything the app and its RTE printed so far (across restarts). */
  output(): string;
  /** Resolves once the app's output contains text matching the pattern. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /**
   * Stops the app as an orchestrator would (SIGTERM) and starts it again on the same port, with
   * the same database and settings. RTEs connected to it must find their way back by themselves.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, "../..");
const RUNNING_AT = /Playform is running at (http:\/\/\S+)/;

export interface StartOptions {
  env?: Record<string, string>;
  /**
   * The project folder whose build to start (its dist/server.js, run from there): this
   * worktree by default; the page benchmark starts an older commit's build from a checkout of it.
   */
  root?: string;
}

export async function startPlayform(opts: StartOptions = {}): Promise<RunningPlayform> {
  const root = opts.root ?? ROOT;
  if (!fs.existsSync(path.join(root, "dist/server.js")))
    throw new Error(`${path.join(root, "dist/server.js")} is missing: run \`npm run build\` there first`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-test-"));
  const adminPassword = opts.env?.PLAYFORM_ADMIN_PASSWORD ?? `pw-${randomBytes(9).toString("base64url")}`;
  let output = "";
  const databaseUrl = opts.env?.DATABASE_URL ?? `file:${path.join(dataDir, "playform.db")}`;
  let child: ResultPromise;

  const waitForOutput = async (pattern: RegExp, timeoutMs = 60_000, from = 0) => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(output.slice(from))) {
      if (child.exitCode !== null) throw new Error(`Playform exited (${child.exitCode}) before printing ${pattern}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} in Playform's output:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  /** Starts the app process; resolves with its URL once it serves and its local RTE is connected. */
  // PLAYFORM_TEST_NODE_ARGS: extra node options for the app, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a test or benchmark.
  const launch = async (port: number): Promise<string> => {
    const from = output.length;
    child = execa(process.execPath, [...(process.env.PLAYFORM_TEST_NODE_ARGS?.split(" ").filter(Boolean) ?? []), "dist/server.js"], {
      cwd: root,
      env: {
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: databaseUrl,
        PLAYFORM_ADMIN_PASSWORD: adminPassword,
        RTE_SPOOL_PATH: path.join(dataDir, "rte/spool"),
        RTE_WORK_DIR: path.join(dataDir, "rte/work"),
        ...opts.env,
      },
      all: true,
      reject: false,
      buffer: false,
    });
    child.all?.setEncoding("utf8").on("data", (text: string) => {
      output += text;
      if (process.env.PLAYFORM_TEST_VERBOSE) process.stdout.write(text);
    });
    await waitForOutput(RUNNING_AT, 60_000, from);
    const url = RUNNING_AT.exec(output.slice(from))![1]!.replace(/\(.*$/, "").trim();
    // The local RTE is a separate process: wait until it has connected (a JSON log line; the
    // page benchmark's older build writes "[rte] … connected to" instead).
    if (opts.env?.PLAYFORM_LOCAL_RTE !== "false")
      await waitForOutput(/"source":"rte".*connected to |\[rte\] .*connected to /, 60_000, from);
    return url;
  };

  const terminate = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    await child;
    clearTimeout(timer);
  };

  const url = await launch(0);
  return {
    url,
    get pid() {
      return child.pid!;
    },
    databaseUrl,
    adminPassword,
    dataDir,
    output: () => output,
    waitForOutput: (pattern, timeoutMs) => waitForOutput(pattern, timeoutMs),
    restart: async () => {
      await terminate();
      const again = await launch(Number(new URL(url).port));
      if (again !== url) throw new Error(`Playform came back at ${again}, not ${url}`);
    },
    stop: async () => {
      await terminate();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A bearer token for the admin, through the API as a script would get one. */
export async function adminToken(app: RunningPlayform): Promise<string> {
  const response = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`admin:${app.adminPassword}`).toString("base64")}` },
  });
  if (response.status !== 201) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/**
 * Rows of a read-only query straight against the app's database (SQLite or PostgreSQL).
 * Write `$1`, `$2`… for parameters; they are rewritten to `?` for SQLite.
 */
export async function dbQuery<T>(app: RunningPlayform, sql: string, params: unknown[] = []): Promise<T[]> {
  if (app.databaseUrl.startsWith("file:")) {
    const db = new Database(app.databaseUrl.slice("file:".length), { readonly: true });
    try {
      return db.prepare(sql.replace(/\$\d+/g, "?")).all(...params) as T[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: app.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * A statement that changes the app's database behind its back (SQLite or PostgreSQL), for
 * tests that set up a state the API cannot reach. `$1`, `$2`… as in dbQuery.
 */
export async function dbExecute(app: RunningPlayform, sql: string, params: unknown[] = []): Promise<void> {
  if (app.databaseUrl.startsWith("file:")) {
    const db = new Database(app.databaseUrl.slice("file:".length), { fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    try {
      db.prepare(sql.replace(/\$\d+/g, "?")).run(...params);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: app.databaseUrl });
  await client.connect();
  try {
    await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** The sequence numbers stored for a job, read straight from the database. */
export async function storedSeqs(app: RunningPlayform, jobId: number): Promise<number[]> {
  const rows = await dbQuery<{ seq: number }>(app, 'SELECT seq FROM "JobChunk" WHERE "jobId" = $1 ORDER BY seq', [jobId]);
  return rows.map((r) => r.seq);
}
