/**
 * Tokens made with tokens, on both databases without an app: deleting a token deletes those it
 * made, to any depth (the parentId foreign key's ON DELETE CASCADE of the migration), and a
 * password change (revokeUserTokensExcept) keeps the credential that made it even when that
 * credential's parent goes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPersonalToken,
  credentialForToken,
  deletePersonalToken,
  issueToken,
  revokeUserTokensExcept,
} from "../../server/data/auth-tokens";
import { closeDb } from "../../server/data/db";
import { applyMigrations } from "../../server/data/migrate";
import { createUser } from "../../server/data/users";
import { startPostgres, type TestPostgres } from "../support/postgres";
import { useTempSqliteDatabase } from "../support/sqlite-db";

const DAY = 86_400_000;

async function family(username: string) {
  const user = await createUser(username, `${username}-password`, "user");
  const signIn = await issueToken(user.id, "api", 30 * DAY);
  const signInId = (await credentialForToken(signIn.token))!.tokenId;
  const soon = new Date(Date.now() + DAY);
  const child = (await createPersonalToken(user.id, "child", soon, "launch", signInId))!;
  const grandchild = (await createPersonalToken(user.id, "grandchild", soon, "read", child.view.id))!;
  const other = (await createPersonalToken(user.id, "other", soon, "admin", null))!;
  return { user, signIn, signInId, child, grandchild, other };
}

const alive = async (token: string) => (await credentialForToken(token)) !== null;

function checks() {
  it("deleting a token deletes the tokens it made, to any depth, and nothing else", async () => {
    const f = await family("del");
    expect(await credentialForToken(f.grandchild.token)).toMatchObject({ scope: "read", kind: "personal" });
    expect(await deletePersonalToken(f.signInId)).toBe(true);
    expect(await alive(f.signIn.token)).toBe(false);
    expect(await alive(f.child.token)).toBe(false);
    expect(await alive(f.grandchild.token)).toBe(false);
    expect(await alive(f.other.token)).toBe(true);
  });

  it("a password change keeps the credential that made it, though its parent goes", async () => {
    const f = await family("pw");
    await revokeUserTokensExcept(f.user.id, f.child.view.id);
    expect(await alive(f.child.token)).toBe(true);
    expect(await alive(f.signIn.token)).toBe(false);
    expect(await alive(f.grandchild.token)).toBe(false);
    expect(await alive(f.other.token)).toBe(false);
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
  checks();
});

describe("on PostgreSQL", () => {
  let postgres: TestPostgres;
  let saved: string | undefined;
  beforeAll(async () => {
    postgres = await startPostgres();
    await applyMigrations(postgres.url);
    saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = postgres.url;
  });
  afterAll(async () => {
    await closeDb();
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    await postgres?.stop();
  });
  checks();
});
