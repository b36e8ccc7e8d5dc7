/**
 * A real, migrated database for tests of code that stores through server/data, without an app:
 * the migrations the app applies at start, no fake of the database. SQLite in a temp folder
 * (useTempSqliteDatabase), or a fresh PostgreSQL database (useTempPostgresDatabase, on the
 * test cluster of test/support/postgres.ts). DATABASE_URL points at it until the returned
 * cleanup runs (vitest runs each test file in its own process, so this does not leak into
 * other files).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { closeDb } from "../../server/data/db";
import { applyMigrations } from "../../server/data/migrate";
import { startPostgres } from "./postgres";

export async function useTempSqliteDatabase(): Promise<{ url: string; cleanup: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-unit-db-"));
  const url = `file:${path.join(dir, "playform.db")}`;
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = url;
  await applyMigrations(url);
  return {
    url,
    cleanup: async () => {
      await closeDb();
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function useTempPostgresDatabase(): Promise<{ url: string; cleanup: () => Promise<void> }> {
  const postgres = await startPostgres();
  await applyMigrations(postgres.url);
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = postgres.url;
  return {
    url: postgres.url,
    cleanup: async () => {
      await closeDb();
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
      await postgres.stop();
    },
  };
}
