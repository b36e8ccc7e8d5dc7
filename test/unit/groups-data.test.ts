/**
 * Groups and memberships on a real migrated SQLite database (server/data/groups.ts): an admin's
 * member list replaces the members all or nothing; single sign-on replaces only the memberships
 * it made and keeps an admin's.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createGroup, groupsOfUser, listGroups, setGroupMembers, syncSsoGroups } from "../../server/data/groups";
import { createUser } from "../../server/data/users";
import { useTempSqliteDatabase } from "../support/temp-db";

let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ cleanup } = await useTempSqliteDatabase());
});
afterEach(async () => {
  await cleanup();
});

it("replaces a group's members with exactly the list, and changes nothing when a user is unknown", async () => {
  await createUser("alice", "password-alice", "user");
  await createUser("bob", "password-bob", "user");
  expect(await createGroup("dba", "")).not.toBeNull();
  expect(await createGroup("dba", "again")).toBeNull();
  expect(await setGroupMembers("dba", ["alice", "bob", "alice"])).toEqual({ ok: true, added: ["alice", "bob"], removed: [] });
  expect(await setGroupMembers("dba", ["bob", "carol"])).toEqual({ ok: false, unknownUsers: ["carol"] });
  expect((await listGroups())[0]!.members.map((m) => m.username)).toEqual(["alice", "bob"]);
  expect(await setGroupMembers("dba", ["bob"])).toEqual({ ok: true, added: [], removed: ["alice"] });
  expect(await setGroupMembers("nope", [])).toEqual({ ok: false, unknownGroup: true });
});

it("follows the single sign-on claim for its own memberships and keeps an admin's", async () => {
  const alice = await createUser("alice", "password-alice", "user");
  await createGroup("ops", "");
  await setGroupMembers("ops", ["alice"]);
  expect(await syncSsoGroups(alice.id, ["dba", "ops"])).toEqual({ added: ["dba"], removed: [] });
  expect(await groupsOfUser(alice.id)).toEqual(["dba", "ops"]);
  // The claim no longer names either: the SSO membership goes, the admin's stays.
  expect(await syncSsoGroups(alice.id, [])).toEqual({ added: [], removed: ["dba"] });
  expect(await groupsOfUser(alice.id)).toEqual(["ops"]);
  const dba = (await listGroups()).find((g) => g.name === "dba")!;
  expect(dba.description).toBe("created by single sign-on");
  expect(dba.members).toEqual([]);
});
