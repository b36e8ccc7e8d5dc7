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
import { createUser } from "../../server/data/users";
import { useTempPostgresDatabase, useTempSqliteDatabase } from "../support/temp-db";

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
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ cleanup } = await useTempPostgresDatabase());
  });
  afterAll(async () => {
    await cleanup?.();
  });
  checks();
});
