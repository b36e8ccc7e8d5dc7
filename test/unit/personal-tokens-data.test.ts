/**
 * Personal token names on a real migrated SQLite database: one name per user, decided by the
 * unique index, so two requests at once cannot both make a token of the same name.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createToken } from "../../server/auth/personal-tokens";
import { createPersonalToken, listPersonalTokens } from "../../server/data/auth-tokens";
import { createUser } from "../../server/data/users";
import { useTempSqliteDatabase } from "../support/temp-db";

let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ cleanup } = await useTempSqliteDatabase());
});
afterEach(async () => {
  await cleanup();
});

it("makes one token of a name per user when two requests ask at once, and says why to the other", async () => {
  const alice = await createUser("alice", "password-alice", "user");
  // Made from a browser session: no parent, no cap.
  const session = { user: alice, tokenId: "session", kind: "session", scope: null, expiresAt: new Date(Date.now() + 3_600_000) } as const;
  const answers = await Promise.allSettled([
    createToken(session, { name: "backup script", expiresInDays: 7 }),
    createToken(session, { name: "backup script", expiresInDays: 7 }),
  ]);
  expect(answers.map((answer) => answer.status).sort()).toEqual(["fulfilled", "rejected"]);
  const refused = answers.find((answer) => answer.status === "rejected")!;
  expect(String(refused.reason)).toContain('you already have a token named "backup script"');
  expect((await listPersonalTokens(alice.id)).map((token) => token.name)).toEqual(["backup script"]);
});

it("refuses a second token of the same name at the database, and lets another user or another name through", async () => {
  const alice = await createUser("alice", "password-alice", "user");
  const bob = await createUser("bob", "password-bob", "user");
  const soon = new Date(Date.now() + 60_000);
  expect(await createPersonalToken(alice.id, "ci", soon, "admin", null)).not.toBeNull();
  expect(await createPersonalToken(alice.id, "ci", soon, "read", null)).toBeNull();
  expect(await createPersonalToken(bob.id, "ci", soon, "admin", null)).not.toBeNull();
  expect(await createPersonalToken(alice.id, "ci-2", soon, "admin", null)).not.toBeNull();
});
