// The one place that builds the Prisma client. Everything else calls getDb().
//
// DATABASE_URL picks the database (unset → file:./data/playform.db):
//   file:...                    SQLite via better-sqlite3 (relative paths against process.cwd())
//   postgres:// | postgresql:// PostgreSQL via pg
// Each provider has its own generated client (scripts/prisma-generate.sh) from the one schema.
// The schema itself is managed by server/data/migrate.ts, which the server runs before serving.
import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import Database from "better-sqlite3";
import { PrismaClient as PostgresPrismaClient } from "./generated/postgres/client";
import { PrismaClient as SqlitePrismaClient } from "./generated/sqlite/client";
import { DEFAULT_DATABASE_URL, providerFromUrl, sqliteFilePath, type DatabaseProvider } from "./database-url";

/**
 * The client type the app is written against.
 *
 * The SQLite and PostgreSQL clients are generated separately and their types do not unify:
 * each carries its own copy of the Prisma namespace, and a few input types really differ by
 * provider (PostgreSQL string filters accept `mode: "insensitive"`; JSON path filters are
 * `path: string[]` on PostgreSQL but a `$.a.b` string on SQLite). At runtime both expose the
 * same models and methods, so the PostgreSQL client is cast to the SQLite type. The price: the
 * compiler accepts only the SQLite shape, so do not use JSON path filters or other
 * provider-specific query features (or branch on databaseProvider() where unavoidable).
 */
export type Db = SqlitePrismaClient;
export type { DatabaseProvider };

interface Holder {
  url: string;
  db: Db;
}

// On globalThis so the custom server and Next's route handlers (separately bundled module
// graphs in one process) share one client, and dev hot reloads do not leak connections.
const KEY = Symbol.for("playform.db");
const store = globalThis as typeof globalThis & { [KEY]?: Holder };

export function databaseUrl(): string {
  return process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
}

export function databaseProvider(): DatabaseProvider {
  return providerFromUrl(databaseUrl());
}

export function getDb(): Db {
  const url = databaseUrl();
  const held = store[KEY];
  if (held) {
    if (held.url !== url) throw new Error("DATABASE_URL changed after the database client was created; call closeDb() first");
    return held.db;
  }
  const db = providerFromUrl(url) === "sqlite" ? sqliteClient(url) : postgresClient(url);
  store[KEY] = { url, db };
  return db;
}

/** Disconnects and forgets the client; the next getDb() builds a new one. */
export async function closeDb(): Promise<void> {
  const held = store[KEY];
  if (!held) return;
  delete store[KEY];
  await held.db.$disconnect();
}

function sqliteClient(url: string): Db {
  const file = sqliteFilePath(url);
  if (file !== ":memory:") {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // WAL lets readers run while a writer commits; it is a property of the file, so set it once
    // here (the adapter opens its own connection and offers no hook for pragmas).
    const setup = new Database(file, { timeout: 15_000 });
    try {
      setup.pragma("journal_mode = WAL");
    } finally {
      setup.close();
    }
  }
  // `timeout` is SQLite's busy timeout: wait for another connection's write lock instead of
  // failing with SQLITE_BUSY. better-sqlite3 enables foreign keys by default (compiled with
  // SQLITE_DEFAULT_FOREIGN_KEYS=1), so ON DELETE CASCADE etc. work on the adapter's connection.
  const adapter = new PrismaBetterSqlite3({ url: file, timeout: 15_000 });
  return new SqlitePrismaClient({ adapter });
}

function postgresClient(url: string): Db {
  const adapter = new PrismaPg({ connectionString: url });
  // See `Db` for why this cast is needed and what it costs.
  return new PostgresPrismaClient({ adapter }) as unknown as Db;
}
