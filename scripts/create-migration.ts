// Creates a new migration for BOTH databases from prisma/schema.prisma:
//
//   npm run db:migration -- <name>
//
// writes prisma/migrations/sqlite/<timestamp>_<name>/migration.sql and
//        prisma/migrations/postgres/<timestamp>_<name>/migration.sql (+ migration_lock.toml each).
// When the schema has not changed since the last migration, it says so and writes nothing.
// The app applies these files itself at start-up (server/data/migrate.ts).
//
// Why not `prisma migrate dev`: Prisma's migrate commands need the native schema engine, which
// cannot be downloaded here. This script drives the same engine compiled to wasm, with driver
// adapters as its database connection. Exact pins (other versions of the wasm engine do not
// match the adapter protocol; keep them in lockstep with the prisma/@prisma/client versions):
//   @prisma/schema-engine-wasm  8.1.0-2.59be4fda12412a79eeb9c2ae727b6aa723593323
//   @prisma/driver-adapter-utils 7.10.0, @prisma/adapter-better-sqlite3 7.10.0, @prisma/adapter-pg 7.10.1
//
// The engine works like `migrate dev --create-only` against throwaway databases:
//   SQLite: an in-memory database (`file::memory:`), shadow database also in memory.
//   PostgreSQL: fresh databases (main + one shadow per engine operation) in `PLAYFORM_PG_URL` if
//   set (a superuser URL), otherwise in a throwaway cluster this script starts with initdb/pg_ctl
//   in a temp dir (as the `postgres` user via runuser when run as root); all removed at the end.
// On each: applyMigrations (existing history; a fresh database must have it, else P1014) →
// devDiagnostic → evaluateDataLoss → createMigration → applyMigrations (proves the new SQL runs).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import * as engineGlue from "@prisma/schema-engine-wasm/schema_engine_bg";
import type { MigrationList, SchemaEngine } from "@prisma/schema-engine-wasm";
import pg from "pg";
import { findPostgresBin } from "./postgres-bin";

type Provider = "sqlite" | "postgres";
type Draft = { provider: Provider; sql: string; warnings: string[] };

const root = path.resolve(import.meta.dirname, "..");
const sourceSchema = path.join(root, "prisma/schema.prisma");
const migrationsRoot = path.join(root, "prisma/migrations");
const verbose = Boolean(process.env.DEBUG);

// ---------------------------------------------------------------------------------------------
// The wasm engine. The package's own entry does `import * as wasm from "./x.wasm"`, which Node 20
// cannot load, so instantiate the module by hand with the package's JS glue as its imports.
function loadSchemaEngine(): typeof engineGlue.SchemaEngine {
  const require = createRequire(import.meta.url);
  const gluePath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const module = new WebAssembly.Module(fs.readFileSync(gluePath.replace(/\.js$/, ".wasm")));
  const instance = new WebAssembly.Instance(module, {
    "./schema_engine_bg.js": engineGlue as unknown as WebAssembly.ModuleImports,
  });
  engineGlue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return engineGlue.SchemaEngine;
}

// ---------------------------------------------------------------------------------------------
// Migration folders as the engine wants them.
function migrationsList(provider: Provider): MigrationList {
  const baseDir = path.join(migrationsRoot, provider);
  const dirs = fs.existsSync(baseDir)
    ? fs
        .readdirSync(baseDir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && fs.existsSync(path.join(baseDir, d.name, "migration.sql")))
        .map((d) => d.name)
        .sort()
    : [];
  const lockPath = path.join(baseDir, "migration_lock.toml");
  return {
    baseDir,
    lockfile: {
      path: "migration_lock.toml",
      content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, "utf8") : null,
    },
    shadowDbInitScript: "",
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: {
        path: "migration.sql",
        content: { tag: "ok", value: fs.readFileSync(path.join(baseDir, name, "migration.sql"), "utf8") },
      },
    })),
  };
}

function schemaFor(provider: Provider): string {
  const source = fs.readFileSync(sourceSchema, "utf8");
  if (provider === "sqlite") return source;
  // Same swap as scripts/prisma-generate.sh (only the datasource provider matters here).
  const swapped = source.replace(/^(\s*provider\s*=\s*)"sqlite"/m, '$1"postgresql"');
  if (swapped === source) throw new Error(`${sourceSchema}: no provider = "sqlite" to swap`);
  return swapped;
}

async function draftMigration(
  SchemaEngineClass: typeof engineGlue.SchemaEngine,
  provider: Provider,
  factory: SqlMigrationAwareDriverAdapterFactory,
  name: string,
): Promise<Draft | null> {
  const schemaPath = provider === "sqlite" ? sourceSchema : path.join(root, "prisma/postgres/schema.prisma");
  const schema = { files: [{ path: schemaPath, content: schemaFor(provider) }] };
  const filters = { externalTables: [], externalEnums: [] };
  const log = (line: string) => verbose && console.error(`[engine ${provider}] ${line}`);
  const engine: SchemaEngine = await SchemaEngineClass.new(
    { datamodels: schema.files.map((f) => [f.path, f.content]) },
    log,
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  try {
    const history = migrationsList(provider);
    await engine.applyMigrations({ migrationsList: history, filters });
    const diagnostic = await engine.devDiagnostic({ migrationsList: history, filters });
    if (diagnostic.action.tag === "reset") {
      throw new Error(`${provider}: the migration history is inconsistent: ${diagnostic.action.reason}`);
    }
    const loss = await engine.evaluateDataLoss({ migrationsList: history, schema, filters });
    const warnings = [...loss.warnings, ...loss.unexecutableSteps].map((w) => w.message);
    const created = await engine.createMigration({
      draft: false,
      migrationName: name,
      migrationsList: history,
      schema,
      filters,
    });
    if (created.migrationScript == null) return null;
    // Prove the new script applies on top of the history (the engine reads it from the list).
    const dirName = `99999999999999_${name}`;
    await engine.applyMigrations({
      migrationsList: {
        ...history,
        migrationDirectories: [
          ...history.migrationDirectories,
          { path: dirName, migrationFile: { path: "migration.sql", content: { tag: "ok", value: created.migrationScript } } },
        ],
      },
      filters,
    });
    return { provider, sql: created.migrationScript, warnings };
  } finally {
    engine.free();
  }
}

// ---------------------------------------------------------------------------------------------
// SQLite: better-sqlite3 rejects multi-statement strings in prepare(), and the engine sends whole
// scripts through executeRaw; fall back to executeScript (db.exec) for those.
function sqliteFactory(): SqlMigrationAwareDriverAdapterFactory {
  const inner = new PrismaBetterSqlite3({ url: ":memory:" });
  const patch = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    const executeRaw = adapter.executeRaw.bind(adapter);
    adapter.executeRaw = async (query) => {
      try {
        return await executeRaw(query);
      } catch (error) {
        if (
          query.args.length === 0 &&
          /more than one statement/i.test(String((error as Error)?.message ?? error) + JSON.stringify(error))
        ) {
          await adapter.executeScript(query.sql);
          return 0;
        }
        throw error;
      }
    };
    return adapter;
  };
  return {
    provider: "sqlite",
    adapterName: inner.adapterName,
    connect: async () => patch(await inner.connect()),
    connectToShadowDb: async () => patch(await inner.connectToShadowDb()),
  };
}

// PostgreSQL: the engine's describer reads `"char"` catalog columns (type oid 18), which
// adapter-pg refuses to map; a pg Client that reports them as text (oid 25) fixes it. The
// adapter's own shadow database handling is not usable (it replays onto the main database and
// drops too early), so both databases are created and dropped by this script.
const CHAR_OID = 18;
const TEXT_OID = 25;
class CharAsTextClient extends pg.Client {
  // pg's query() has many overloads; only the result's field list is touched.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- must match pg.Client.query's overloaded return type
  override query(...args: unknown[]): any {
    const fix = (result: unknown) => {
      for (const r of Array.isArray(result) ? result : [result]) {
        for (const f of (r as pg.QueryResult | undefined)?.fields ?? []) if (f.dataTypeID === CHAR_OID) f.dataTypeID = TEXT_OID;
      }
      return result;
    };
    const last = args[args.length - 1];
    if (typeof last === "function") {
      args[args.length - 1] = (err: unknown, res: unknown) => (last as (e: unknown, r: unknown) => void)(err, err ? res : fix(res));
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
    const ret = (super.query as (...a: unknown[]) => unknown)(...args);
    return ret instanceof Promise ? ret.then(fix) : ret;
  }
}

function pgFactory(serverUrl: string, admin: pg.Client, mainDb: string): SqlMigrationAwareDriverAdapterFactory {
  const adapterFor = (database: string) =>
    new PrismaPg({ connectionString: withDatabase(serverUrl, database), Client: CharAsTextClient, max: 2 }).connect();
  let shadows = 0;
  return {
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    connect: () => adapterFor(mainDb),
    // The engine asks for a shadow database per operation and expects it empty each time.
    connectToShadowDb: async () => {
      const shadowDb = `${mainDb}_shadow${++shadows}`;
      await admin.query(`CREATE DATABASE "${shadowDb}"`);
      const adapter = await adapterFor(shadowDb);
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await admin.query(`DROP DATABASE IF EXISTS "${shadowDb}" WITH (FORCE)`);
      };
      return adapter;
    },
  };
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

// A throwaway PostgreSQL cluster (initdb + pg_ctl under a temp dir), or PLAYFORM_PG_URL.
async function postgresServer(): Promise<{ url: string; stop: () => void }> {
  if (process.env.PLAYFORM_PG_URL) return { url: process.env.PLAYFORM_PG_URL, stop: () => {} };
  const binDir = findPostgresBin();
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    execFileSync(asRoot ? "runuser" : path.join(binDir, cmd), asRoot ? ["-u", "postgres", "--", path.join(binDir, cmd), ...args] : args, {
      stdio: ["ignore", "pipe", "pipe"],
    });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-pg-"));
  if (asRoot) execFileSync("chown", ["postgres:", dir]);
  const port = await freePort();
  const data = path.join(dir, "data");
  const stop = () => {
    try {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      /* not running */
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"]);
    run("pg_ctl", [
      "-D",
      data,
      "-l",
      path.join(dir, "log"),
      "-w",
      "-o",
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`,
      "start",
    ]);
  } catch (error) {
    const e = error as { stderr?: Buffer; message: string };
    stop();
    throw new Error(`could not start a throwaway PostgreSQL: ${e.stderr?.toString() || e.message}`, { cause: error });
  }
  return { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, stop };
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

async function draftPostgres(SchemaEngineClass: typeof engineGlue.SchemaEngine, name: string): Promise<Draft | null> {
  const server = await postgresServer();
  const admin = new pg.Client({ connectionString: server.url });
  const main = `playform_migrate_${randomBytes(6).toString("hex")}`;
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE "${main}"`);
    return await draftMigration(SchemaEngineClass, "postgres", pgFactory(server.url, admin, main), name);
  } finally {
    // Drops the main database and any shadow database the engine did not dispose of.
    const left = await admin
      .query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [`${main}%`])
      .catch(() => ({ rows: [] }));
    for (const { datname } of left.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => {});
    await admin.end().catch(() => {});
    server.stop();
  }
}

// ---------------------------------------------------------------------------------------------
function timestamp(): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

const lockfile = (provider: string) =>
  `# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "${provider}"\n`;

async function main(): Promise<number> {
  const rawName = process.argv.slice(2).join(" ");
  const name = rawName
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (!name) {
    console.error("usage: npm run db:migration -- <name>   (e.g. add_job_labels)");
    return 2;
  }
  const SchemaEngineClass = loadSchemaEngine();
  // Both drafts first, then write: a failure on one provider writes nothing at all.
  console.log("diffing SQLite (in memory)...");
  const sqlite = await draftMigration(SchemaEngineClass, "sqlite", sqliteFactory(), name);
  console.log(`diffing PostgreSQL (${process.env.PLAYFORM_PG_URL ? "PLAYFORM_PG_URL" : "throwaway cluster"})...`);
  const postgres = await draftPostgres(SchemaEngineClass, name);

  const drafts = [sqlite, postgres].filter((d): d is Draft => d !== null);
  if (drafts.length === 0) {
    console.log("No schema changes since the last migration: nothing written.");
    return 0;
  }
  if (drafts.length === 1) {
    console.warn(`Only ${drafts[0]!.provider} has changes: its migration folder was behind the other one.`);
  }
  const folder = `${timestamp()}_${name}`;
  for (const draft of drafts) {
    const dir = path.join(migrationsRoot, draft.provider, folder);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "migration.sql"), draft.sql);
    const lock = path.join(migrationsRoot, draft.provider, "migration_lock.toml");
    if (!fs.existsSync(lock)) fs.writeFileSync(lock, lockfile(draft.provider === "sqlite" ? "sqlite" : "postgresql"));
    console.log(`wrote ${path.relative(root, path.join(dir, "migration.sql"))}`);
    for (const w of draft.warnings) console.warn(`  warning (${draft.provider}): ${w}`);
    if (draft.sql.startsWith("/*\n  Warnings:")) console.warn("  review the warnings at the top of that file");
  }
  return 0;
}

// process.exit: the wasm engine keeps timers alive and the process would linger ~60 s.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("create-migration failed:", error instanceof Error ? error.message : error);
    if (verbose) console.error(error);
    process.exit(1);
  },
);
