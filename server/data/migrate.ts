// Applies the committed migrations at app start (Prisma's `migrate deploy` needs the native
// schema engine, which cannot be installed here).
//
// Migrations live in <migrations dir>/{sqlite,postgres}/<timestamp>_<name>/migration.sql and are
// created by `npm run db:migration -- <name>` (scripts/create-migration.ts). They are applied in
// name order, one transaction each, and recorded in a `_prisma_migrations` table with the same
// layout and values Prisma writes (checksum = sha256 hex of the file), so Prisma's own tools
// can read the history. An applied migration whose file changed since is an error, never
// silently re-run or skipped. A migration that fails is rolled back and not recorded; the next
// start retries it.
//
// PostgreSQL: several app nodes may start at once, so everything happens under the session
// advisory lock Prisma Migrate also uses (72707369): one node migrates, the others wait and then
// find nothing to do. SQLite: each migration runs in a BEGIN IMMEDIATE transaction that re-checks
// the table, with foreign key enforcement off for the connection (Prisma's table-redefinition
// scripts need that, and `PRAGMA foreign_keys` is a no-op inside a transaction) and a
// `PRAGMA foreign_key_check` before each commit instead.
//
// Caveat: a migration.sql with its own BEGIN/COMMIT would end our transaction early; keep them out.
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";

import { providerFromUrl, sqliteFilePath, type DatabaseProvider } from "./database-url";

export { DEFAULT_DATABASE_URL, providerFromUrl, sqliteFilePath, type DatabaseProvider } from "./database-url";

/**
 * Prisma Migrate's advisory lock key, so we also exclude a concurrent `prisma migrate deploy`.
 * The start-up writes after the migrations take it too (server/data/startup-lock.ts).
 */
export const PG_LOCK_KEY = 72707369;

export interface Migration {
  name: string;
  checksum: string;
  sql: string;
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
}

/**
 * The folder holding `sqlite/` and `postgres/`: $PLAYFORM_MIGRATIONS_DIR, else prisma/migrations
 * under process.cwd(), else next to this module (source: server/data/ → ../../prisma; the
 * esbuild bundle: dist/server.js → ../prisma).
 */
export function migrationsDir(provider: DatabaseProvider): string {
  const sub = provider === "sqlite" ? "sqlite" : "postgres";
  const fromEnv = process.env.PLAYFORM_MIGRATIONS_DIR;
  if (fromEnv) {
    const dir = path.resolve(fromEnv, sub);
    if (!fs.existsSync(/*turbopackIgnore: true*/ dir)) throw new Error(`PLAYFORM_MIGRATIONS_DIR=${fromEnv} has no ${sub}/ folder`);
    return dir;
  }
  const candidates = [path.resolve(process.cwd(), "prisma/migrations")];
  try {
    const here = path.dirname(fileURLToPath(import.meta.url));
    candidates.push(path.resolve(here, "../../prisma/migrations"), path.resolve(here, "../prisma/migrations"));
  } catch {
    /* import.meta.url is not a file: URL (some bundlers); cwd it is */
  }
  for (const candidate of candidates) {
    if (fs.existsSync(/*turbopackIgnore: true*/ path.join(candidate, sub))) return path.join(candidate, sub);
  }
  throw new Error(`no ${sub} migrations found (looked in ${candidates.join(", ")}); set PLAYFORM_MIGRATIONS_DIR`);
}

/** The committed migrations for a provider, in the order they apply. */
export function loadMigrations(provider: DatabaseProvider): Migration[] {
  const dir = migrationsDir(provider);
  return fs
    .readdirSync(/*turbopackIgnore: true*/ dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(/*turbopackIgnore: true*/ path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const bytes = fs.readFileSync(/*turbopackIgnore: true*/ path.join(dir, name, "migration.sql"));
      return { name, checksum: createHash("sha256").update(bytes).digest("hex"), sql: bytes.toString("utf8") };
    });
}

/** Applies the pending migrations; returns the names of those it applied (in order). */
export async function applyMigrations(url: string): Promise<{ applied: string[] }> {
  const provider = providerFromUrl(url);
  const migrations = loadMigrations(provider);
  return provider === "sqlite" ? applySqlite(url, migrations) : applyPostgres(url, migrations);
}

/** For the readiness probe: migrations not applied yet (all of them if the database is new). */
export async function migrationStatus(url: string): Promise<{ pending: string[] }> {
  const provider = providerFromUrl(url);
  const migrations = loadMigrations(provider);
  const applied = provider === "sqlite" ? readAppliedSqlite(url) : await readAppliedPostgres(url);
  const done = new Set(applied.filter((r) => r.finished_at != null).map((r) => r.migration_name));
  return { pending: migrations.filter((m) => !done.has(m.name)).map((m) => m.name) };
}

// ---------------------------------------------------------------------------------------------

/** Throws on an applied migration whose file changed, or a failed one left by another tool. */
function checkHistory(provider: DatabaseProvider, migrations: Migration[], applied: AppliedRow[]): Set<string> {
  const byName = new Map(migrations.map((m) => [m.name, m]));
  const done = new Set<string>();
  for (const row of applied) {
    const migration = byName.get(row.migration_name);
    if (row.finished_at == null) {
      throw new Error(
        `Migration "${row.migration_name}" (${provider}) is recorded as started but not finished in _prisma_migrations. ` +
          "Repair the database by hand, then set rolled_back_at on that row.",
      );
    }
    // A row without a file: applied by a newer version of the app; nothing to check.
    if (!migration) continue;
    if (migration.checksum !== row.checksum) {
      throw new Error(
        `Migration "${row.migration_name}" (${provider}) was changed after it was applied: ` +
          `the database recorded checksum ${row.checksum}, the file now has ${migration.checksum}. ` +
          "Restore the original migration.sql and put the change in a new migration (npm run db:migration -- <name>).",
      );
    }
    done.add(row.migration_name);
  }
  return done;
}

const failed = (name: string, provider: DatabaseProvider, error: unknown) =>
  new Error(`Migration "${name}" (${provider}) failed and was rolled back: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });

// --- SQLite ----------------------------------------------------------------------------------

const SQLITE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;
const SELECT_APPLIED = `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL ORDER BY started_at`;

/** What Prisma writes in SQLite: ISO 8601 with an explicit offset. */
const sqliteNow = () => new Date().toISOString().replace("Z", "+00:00");

function openSqlite(url: string, options: Database.Options = {}): Database.Database {
  const file = sqliteFilePath(url);
  if (file !== ":memory:" && !options.readonly) fs.mkdirSync(path.dirname(file), { recursive: true });
  return new Database(file, { timeout: 15_000, ...options });
}

function applySqlite(url: string, migrations: Migration[]): { applied: string[] } {
  const db = openSqlite(url);
  try {
    if (db.name !== ":memory:") db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = OFF");
    db.exec(SQLITE_TABLE);
    const done = checkHistory("sqlite", migrations, db.prepare(SELECT_APPLIED).all() as AppliedRow[]);
    const applied: string[] = [];
    const isApplied = db.prepare(`SELECT 1 FROM "_prisma_migrations" WHERE migration_name = ? AND rolled_back_at IS NULL`);
    const record = db.prepare(
      `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
       VALUES (?, ?, ?, ?, NULL, NULL, ?, 1)`,
    );
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      // IMMEDIATE takes the write lock first: another process migrating the same file waits
      // here (busy timeout), then sees the migration recorded and skips it.
      db.exec("BEGIN IMMEDIATE");
      try {
        if (isApplied.get(migration.name)) {
          db.exec("ROLLBACK");
          continue;
        }
        const startedAt = sqliteNow();
        db.exec(migration.sql);
        const violations = db.pragma("foreign_key_check") as { table: string; parent: string }[];
        if (violations.length > 0) {
          const first = violations[0]!;
          throw new Error(`${violations.length} foreign key violation(s), e.g. ${first.table} → ${first.parent}`);
        }
        record.run(randomUUID(), migration.checksum, sqliteNow(), migration.name, startedAt);
        db.exec("COMMIT");
        applied.push(migration.name);
      } catch (error) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw failed(migration.name, "sqlite", error);
      }
    }
    return { applied };
  } finally {
    db.close();
  }
}

function readAppliedSqlite(url: string): AppliedRow[] {
  const file = sqliteFilePath(url);
  if (file !== ":memory:" && !fs.existsSync(/*turbopackIgnore: true*/ file)) return [];
  const db = openSqlite(url, { readonly: true });
  try {
    const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`).get();
    return table ? (db.prepare(SELECT_APPLIED).all() as AppliedRow[]) : [];
  } finally {
    db.close();
  }
}

// --- PostgreSQL ------------------------------------------------------------------------------

const PG_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

async function applyPostgres(url: string, migrations: Migration[]): Promise<{ applied: string[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Session lock, held across the per-migration transactions; released by unlock or on disconnect.
    await client.query("SELECT pg_advisory_lock($1)", [PG_LOCK_KEY]);
    await client.query("SET client_min_messages = warning"); // no NOTICEs from IF NOT EXISTS
    await client.query(PG_TABLE);
    const done = checkHistory("postgresql", migrations, (await client.query<AppliedRow>(SELECT_APPLIED)).rows);
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      await client.query("BEGIN");
      try {
        const startedAt = new Date();
        await client.query(migration.sql); // simple query protocol: runs the whole script
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, NULL, NULL, $4, 1)`,
          [randomUUID(), migration.checksum, migration.name, startedAt],
        );
        await client.query("COMMIT");
        applied.push(migration.name);
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw failed(migration.name, "postgresql", error);
      }
    }
    await client.query("SELECT pg_advisory_unlock($1)", [PG_LOCK_KEY]);
    return { applied };
  } finally {
    await client.end();
  }
}

async function readAppliedPostgres(url: string): Promise<AppliedRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ exists: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS exists`);
    return rows[0]?.exists ? (await client.query<AppliedRow>(SELECT_APPLIED)).rows : [];
  } finally {
    await client.end();
  }
}
