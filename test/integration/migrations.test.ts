// The committed migrations against real databases: a SQLite file in a temp dir and a throwaway
// PostgreSQL cluster (test/support/postgres.ts; fails, never skips, without PostgreSQL installed).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeDb, databaseProvider, getDb } from "../../server/data/db";
import { applyMigrations, loadMigrations, migrationStatus } from "../../server/data/migrate";
import { startPostgres, type TestPostgres } from "../support/postgres";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "playform-migrations-"));
const savedEnv = { DATABASE_URL: process.env.DATABASE_URL, PLAYFORM_MIGRATIONS_DIR: process.env.PLAYFORM_MIGRATIONS_DIR };

afterEach(async () => {
  await closeDb();
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A copy of prisma/migrations whose first migration.sql gets one more comment line. */
function tamperedMigrationsDir(provider: "sqlite" | "postgres"): { dir: string; name: string } {
  const dir = fs.mkdtempSync(path.join(tmp, "tampered-"));
  fs.cpSync(path.resolve("prisma/migrations"), dir, { recursive: true });
  const name = fs
    .readdirSync(path.join(dir, provider))
    .filter((n) => !n.endsWith(".toml"))
    .sort()[0]!;
  fs.appendFileSync(path.join(dir, provider, name, "migration.sql"), "\n-- edited after the fact\n");
  return { dir, name };
}

async function createAndReadUser(url: string, expected: "sqlite" | "postgresql") {
  process.env.DATABASE_URL = url;
  expect(databaseProvider()).toBe(expected);
  const db = getDb();
  expect(getDb()).toBe(db); // singleton
  const created = await db.user.create({ data: { id: `u-${expected}`, username: `alice-${expected}`, passwordHash: "x", role: "admin" } });
  expect(created.createdAt).toBeInstanceOf(Date);
  const read = await db.user.findUnique({ where: { username: `alice-${expected}` } });
  expect(read).toMatchObject({ id: `u-${expected}`, role: "admin" });
  // Relations and Json go through the adapter too.
  await db.form.create({
    data: { id: "f1", name: "deploy", title: "Deploy", definition: { fields: [{ name: "host" }] }, sourceDir: "/x" },
  });
  const job = await db.job.create({
    data: { formId: "f1", formName: "deploy", userId: created.id, values: { host: "a" }, extravars: {}, manifest: [] },
  });
  expect(job.id).toBeTypeOf("number");
  const withJobs = await db.user.findUniqueOrThrow({ where: { id: created.id }, include: { jobs: true } });
  expect(withJobs.jobs.map((j) => j.values)).toEqual([{ host: "a" }]);
  return db;
}

describe("SQLite", () => {
  const file = path.join(tmp, "sqlite", "nested", "playform.db");
  const url = `file:${file}`;
  const names = loadMigrations("sqlite").map((m) => m.name);

  it("has migrations to apply", () => {
    expect(names.length).toBeGreaterThan(0);
  });

  it("applies all migrations, then is a no-op", async () => {
    expect(await migrationStatus(url)).toEqual({ pending: names });
    expect(await applyMigrations(url)).toEqual({ applied: names });
    expect(await applyMigrations(url)).toEqual({ applied: [] });
    expect(await migrationStatus(url)).toEqual({ pending: [] });

    const db = new Database(file, { readonly: true });
    const rows = db.prepare(`SELECT * FROM "_prisma_migrations"`).all() as Record<string, unknown>[];
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[];
    db.close();
    expect(rows).toHaveLength(names.length);
    expect(rows[0]).toMatchObject({ migration_name: names[0], applied_steps_count: 1, rolled_back_at: null, logs: null });
    expect(rows[0]!.checksum).toBe(loadMigrations("sqlite")[0]!.checksum);
    expect(rows[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["User", "Job", "JobChunk", "Runner"]));
  });

  it("refuses an applied migration whose file changed, naming it", async () => {
    const { dir, name } = tamperedMigrationsDir("sqlite");
    process.env.PLAYFORM_MIGRATIONS_DIR = dir;
    await expect(applyMigrations(url)).rejects.toThrow(new RegExp(`Migration "${name}" \\(sqlite\\) was changed after it was applied`));
  });

  it("serves getDb(): create a User and read it back", async () => {
    const db = await createAndReadUser(url, "sqlite");
    const [fk] = await db.$queryRawUnsafe<{ foreign_keys: bigint | number }[]>("PRAGMA foreign_keys");
    expect(Number(fk!.foreign_keys)).toBe(1);
    const [mode] = await db.$queryRawUnsafe<{ journal_mode: string }[]>("PRAGMA journal_mode");
    expect(mode!.journal_mode).toBe("wal");
  });
});

describe("PostgreSQL", () => {
  let server: TestPostgres;
  const names = loadMigrations("postgresql").map((m) => m.name);

  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("applies all migrations, then is a no-op", async () => {
    expect(await migrationStatus(server.url)).toEqual({ pending: names });
    expect(await applyMigrations(server.url)).toEqual({ applied: names });
    expect(await applyMigrations(server.url)).toEqual({ applied: [] });
    expect(await migrationStatus(server.url)).toEqual({ pending: [] });

    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const { rows } = await client.query(`SELECT * FROM "_prisma_migrations" ORDER BY started_at`);
    await client.end();
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    expect(rows[0]).toMatchObject({ applied_steps_count: 1, rolled_back_at: null, checksum: loadMigrations("postgresql")[0]!.checksum });
    expect(rows[0].finished_at).toBeInstanceOf(Date);
  });

  it("applies once when two nodes migrate at the same time", async () => {
    const fresh = await startPostgres();
    try {
      const results = await Promise.all([applyMigrations(fresh.url), applyMigrations(fresh.url), applyMigrations(fresh.url)]);
      expect(results.map((r) => r.applied).flat()).toEqual(names);
      expect(results.filter((r) => r.applied.length === 0)).toHaveLength(2);
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM "_prisma_migrations"`);
      await client.end();
      expect(rows[0].n).toBe(names.length);
    } finally {
      await fresh.stop();
    }
  });

  it("refuses an applied migration whose file changed, naming it", async () => {
    const { dir, name } = tamperedMigrationsDir("postgres");
    process.env.PLAYFORM_MIGRATIONS_DIR = dir;
    await expect(applyMigrations(server.url)).rejects.toThrow(
      new RegExp(`Migration "${name}" \\(postgresql\\) was changed after it was applied`),
    );
  });

  it("serves getDb(): create a User and read it back", async () => {
    await createAndReadUser(server.url, "postgresql");
  });
});
