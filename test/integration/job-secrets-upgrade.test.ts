/**
 * Upgrading a database whose jobs hold password values in plain extravars (launched before
 * they were kept apart), on SQLite and PostgreSQL: the migration removes them from jobs that
 * ended, and the start-up step (sealLegacyPasswordValues) seals them for jobs that may still be
 * dispatched and drops them from running ones. Everything else in the rows stays as it was.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeDb } from "../../server/data/db";
import { applyMigrations } from "../../server/data/migrate";
import { openJobSecrets, sealLegacyPasswordValues } from "../../server/jobs/job-secrets";
import { startPostgres } from "../support/postgres";

const MIGRATION = /_job_secret_extravars$/;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "playform-job-secrets-"));
const saved = {
  DATABASE_URL: process.env.DATABASE_URL,
  PLAYFORM_MIGRATIONS_DIR: process.env.PLAYFORM_MIGRATIONS_DIR,
  ENCRYPTION_SECRET: process.env.ENCRYPTION_SECRET,
};

afterEach(async () => {
  await closeDb();
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** prisma/migrations without the migration under test and those after it. */
function migrationsBefore(): string {
  const dir = fs.mkdtempSync(path.join(tmp, "before-"));
  for (const provider of ["sqlite", "postgres"]) {
    const names = fs.readdirSync(path.resolve("prisma/migrations", provider)).sort();
    const cut = names.findIndex((name) => MIGRATION.test(name));
    expect(cut).toBeGreaterThan(0);
    for (const name of names.slice(0, cut)) {
      fs.cpSync(path.resolve("prisma/migrations", provider, name), path.join(dir, provider, name), { recursive: true });
    }
  }
  return dir;
}

const definition = {
  name: "legacy",
  title: "Legacy",
  playbook: "playbook.yml",
  fields: [
    { name: "pw", type: "password" },
    { name: "note", type: "text" },
  ],
};
const values = { pw: "********", note: "kept", flag: true };
const extravars = { pw: "plain-s3cret", note: "kept", flag: true, unsafe: { __ansible_unsafe: "{{ x }}" } };
const withoutPassword = { note: "kept", flag: true, unsafe: { __ansible_unsafe: "{{ x }}" } };
const STATUSES = ["success", "aborted", "queued", "approval", "running"] as const;

type Sql = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

async function upgrade(url: string, sql: Sql): Promise<void> {
  process.env.DATABASE_URL = url;
  process.env.ENCRYPTION_SECRET = "job-secrets-upgrade-test-secret-0123456789";
  process.env.PLAYFORM_MIGRATIONS_DIR = migrationsBefore();
  await applyMigrations(url);
  await sql(`INSERT INTO "User" (id, username, "passwordHash", role) VALUES ('u1', 'alice', 'x', 'admin')`);
  await sql(`INSERT INTO "Form" (id, name, title, definition, "sourceDir", "updatedAt") VALUES ('f1', 'legacy', 'Legacy', $1, '/x', $2)`, [
    JSON.stringify(definition),
    new Date().toISOString(),
  ]);
  for (const status of STATUSES) {
    await sql(
      `INSERT INTO "Job" ("formId", "formName", "userId", status, "values", extravars, manifest) VALUES ('f1', 'legacy', 'u1', $1, $2, $3, '[]')`,
      [status, JSON.stringify(values), JSON.stringify(extravars)],
    );
  }
  delete process.env.PLAYFORM_MIGRATIONS_DIR;
  await applyMigrations(url);
  expect(await sealLegacyPasswordValues()).toBe(3);

  const rows = await sql(`SELECT id, status, "values", extravars, "secretExtravars" FROM "Job" ORDER BY id`);
  const json = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);
  for (const row of rows) {
    expect(json(row.values), String(row.status)).toEqual(values);
    expect(json(row.extravars), String(row.status)).toEqual(withoutPassword);
    if (row.status === "queued" || row.status === "approval") {
      expect(openJobSecrets(Number(row.id), String(row.secretExtravars))).toEqual({ pw: "plain-s3cret" });
    } else {
      expect(row.secretExtravars, String(row.status)).toBeNull();
    }
  }
  // Nothing left to do at the next start.
  expect(await sealLegacyPasswordValues()).toBe(0);
}

describe("upgrading jobs that hold password values in plain", () => {
  it("on SQLite", async () => {
    const file = path.join(tmp, "sqlite.db");
    const sql: Sql = async (text, params = []) => {
      const db = new Database(file);
      try {
        const statement = db.prepare(text.replace(/\$\d+/g, "?"));
        return statement.reader ? (statement.all(...params) as Record<string, unknown>[]) : (statement.run(...params), []);
      } finally {
        db.close();
      }
    };
    await upgrade(`file:${file}`, sql);
  });

  it("on PostgreSQL", async () => {
    const server = await startPostgres();
    try {
      const sql: Sql = async (text, params = []) => {
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        try {
          return (await client.query(text, params)).rows as Record<string, unknown>[];
        } finally {
          await client.end();
        }
      };
      await upgrade(server.url, sql);
    } finally {
      await closeDb();
      await server.stop();
    }
  });
});
