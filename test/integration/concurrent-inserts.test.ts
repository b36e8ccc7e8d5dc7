/**
 * Rows several requests create at the same moment, on both databases without an app. The
 * content-addressed job files (server/data/job-files.ts): app nodes launching the same form for
 * the first time all store the same files, and none of them fails for it (a multi-node start
 * once answered one of three launches with a 500, the losing insert's unique violation). The
 * groups of single sign-on (server/data/groups.ts): first sign-ins naming the same new group.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groupsOfUser, syncSsoGroups } from "../../server/data/groups";
import { readJobFile, storeJobFile } from "../../server/data/job-files";
import { createUser } from "../../server/data/users";
import { useTempPostgresDatabase, useTempSqliteDatabase } from "../support/temp-db";

const sha = (content: Buffer) => createHash("sha256").update(content).digest("hex");

function checks(rows: () => Promise<number>) {
  it("stores one file once when many store it at the same moment, and none of them fails", async () => {
    for (let round = 0; round < 5; round++) {
      const content = Buffer.from(`- hosts: all\n  # round ${round}\n`);
      const results = await Promise.allSettled(Array.from({ length: 12 }, () => storeJobFile(sha(content), content)));
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
      expect(await readJobFile(sha(content))).toEqual(content);
    }
    expect(await rows()).toBe(5);
  });

  it("signs in users at the same moment whose claims name the same new groups", async () => {
    const users = await Promise.all(Array.from({ length: 6 }, (_, i) => createUser(`sso-${i}`, `sso-${i}-password`, "user")));
    const results = await Promise.allSettled(users.map((user) => syncSsoGroups(user.id, ["ops", "sre"])));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    for (const user of users) expect(await groupsOfUser(user.id)).toEqual(["ops", "sre"]);
  });
}

describe("on SQLite", () => {
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ cleanup } = await useTempSqliteDatabase());
  });
  afterAll(async () => {
    await cleanup?.();
  });
  checks(async () => {
    const { getDb } = await import("../../server/data/db");
    return getDb().jobFile.count();
  });
});

describe("on PostgreSQL", () => {
  let cleanup: () => Promise<void>;
  let url: string;
  beforeAll(async () => {
    ({ url, cleanup } = await useTempPostgresDatabase());
  });
  afterAll(async () => {
    await cleanup?.();
  });
  checks(async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "JobFile"`)).rows[0]!.n;
    } finally {
      await client.end();
    }
  });
});
