// A real PostgreSQL for integration tests.
//
//   const pg = await startPostgres();   // { url, stop }
//   ... use pg.url (a fresh, empty database) ...
//   await pg.stop();                     // drops that database
//
// All calls in one test process share one throwaway cluster (initdb + pg_ctl under a temp dir,
// on a free port, listening on 127.0.0.1 only, fsync off); every call gets its own database.
// The cluster is stopped and deleted when the last database is stopped, or at process exit.
// As root, the server runs as the `postgres` user (runuser), as PostgreSQL refuses to run as root.
// With PLAYFORM_PG_URL (a superuser URL, e.g. a CI service container) no cluster is started and
// the databases are created there instead.
//
// Needs the PostgreSQL server binaries (Debian: apt-get install -y postgresql). Without them
// startPostgres() throws: tests that need PostgreSQL fail, they are never skipped.
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { findPostgresBin } from "../../scripts/postgres-bin";

export interface TestPostgres {
  /** postgresql:// URL of a fresh, empty database. */
  url: string;
  /** Drops the database (and stops the cluster once no database is left). */
  stop(): Promise<void>;
}

interface Cluster {
  url: string; // superuser URL of the `postgres` database
  stop(): void;
}

const execFileAsync = promisify(execFile);
let cluster: Promise<Cluster> | null = null;
let users = 0;

export async function startPostgres(): Promise<TestPostgres> {
  users++;
  let server: Cluster;
  try {
    cluster ??= process.env.PLAYFORM_PG_URL ? Promise.resolve({ url: process.env.PLAYFORM_PG_URL, stop: () => {} }) : startCluster();
    server = await cluster;
  } catch (error) {
    users--;
    cluster = null;
    throw error;
  }
  const database = `playform_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(server.url, `CREATE DATABASE "${database}"`);
  const url = new URL(server.url);
  url.pathname = `/${database}`;
  let stopped = false;
  return {
    url: url.toString(),
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await adminQuery(server.url, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      } finally {
        if (--users === 0 && cluster) {
          cluster = null;
          server.stop();
        }
      }
    },
  };
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function startCluster(): Promise<Cluster> {
  const bin = findPostgresBin();
  const asRoot = process.getuid?.() === 0;
  const command = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args]] : [path.join(bin, tool), args];

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-test-pg-"));
  if (asRoot) fs.chownSync(dir, ...postgresUid());
  const data = path.join(dir, "data");
  const log = path.join(dir, "server.log");
  const port = await freePort();

  const stop = () => {
    process.removeListener("exit", stop);
    try {
      execFileSync(...command("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]), { stdio: "ignore" });
    } catch {
      /* was not running */
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", stop);

  try {
    await execFileAsync(...command("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"]));
    await execFileAsync(
      ...command("pg_ctl", [
        "-D",
        data,
        "-l",
        log,
        "-w",
        "-t",
        "60",
        "-o",
        `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c full_page_writes=off -c synchronous_commit=off`,
        "start",
      ]),
    );
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    const serverLog = fs.existsSync(log) ? fs.readFileSync(log, "utf8").slice(-2000) : "";
    stop();
    throw new Error(`could not start a throwaway PostgreSQL: ${e.stderr || e.message}\n${serverLog}`, { cause: error });
  }
  return { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, stop };
}

function postgresUid(): [number, number] {
  const line = fs
    .readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (!uid || !gid) throw new Error("running as root but there is no `postgres` user to run the server as (install postgresql)");
  return [Number(uid), Number(gid)];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
