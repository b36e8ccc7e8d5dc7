/**
 * Groups (teams) and their members. Forms name groups in form.yaml `access:`; a member's
 * groups decide which forms they launch and whose jobs they read or approve
 * (server/access/policy.ts). Memberships carry their source: "manual" ones are an admin's,
 * "oidc" ones follow the single sign-on groups claim and are replaced at every sign-in.
 */
import { randomUUID } from "node:crypto";
import { getDb } from "./db";
import { isUniqueViolation } from "./unique";

export type MembershipSource = "manual" | "oidc";

export interface GroupView {
  id: string;
  name: string;
  description: string;
  createdAt: string;
  members: { username: string; source: MembershipSource }[];
}

export async function listGroups(): Promise<GroupView[]> {
  const groups = await getDb().group.findMany({
    orderBy: { name: "asc" },
    include: { members: { include: { user: { select: { username: true } } } } },
  });
  return groups.map((group) => ({
    id: group.id,
    name: group.name,
    description: group.description,
    createdAt: group.createdAt.toISOString(),
    members: group.members
      .map((member) => ({ username: member.user.username, source: member.source as MembershipSource }))
      .sort((a, b) => a.username.localeCompare(b.username)),
  }));
}

export async function findGroup(name: string): Promise<GroupView | null> {
  return (await listGroups()).find((group) => group.name === name) ?? null;
}

/** Null when the name is taken. */
export async function createGroup(name: string, description: string): Promise<GroupView | null> {
  try {
    const group = await getDb().group.create({ data: { id: randomUUID(), name, description } });
    return { id: group.id, name: group.name, description: group.description, createdAt: group.createdAt.toISOString(), members: [] };
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** False when there is no such group. */
export async function deleteGroup(name: string): Promise<boolean> {
  const result = await getDb().group.deleteMany({ where: { name } });
  return result.count === 1;
}

export type SetMembersOutcome = { ok: true; added: string[]; removed: string[] } | { ok: false; unknownGroup: true } | { ok: false; unknownUsers: string[] };

/**
 * Replaces the group's members with exactly these users (by username), in one transaction:
 * nothing changes when the group or any user does not exist.
 */
export async function setGroupMembers(name: string, usernames: string[]): Promise<SetMembersOutcome> {
  const wanted = [...new Set(usernames)];
  return getDb().$transaction(async (tx) => {
    const group = await tx.group.findUnique({ where: { name }, include: { members: { include: { user: { select: { username: true } } } } } });
    if (!group) return { ok: false, unknownGroup: true } as const;
    const users = await tx.user.findMany({ where: { username: { in: wanted } }, select: { id: true, username: true } });
    const unknownUsers = wanted.filter((username) => !users.some((user) => user.username === username));
    if (unknownUsers.length > 0) return { ok: false, unknownUsers } as const;
    const before = new Set(group.members.map((member) => member.user.username));
    await tx.groupMember.deleteMany({ where: { groupId: group.id } });
    if (users.length > 0) {
      await tx.groupMember.createMany({ data: users.map((user) => ({ groupId: group.id, userId: user.id, source: "manual" })) });
    }
    return {
      ok: true,
      added: wanted.filter((username) => !before.has(username)).sort(),
      removed: [...before].filter((username) => !wanted.includes(username)).sort(),
    } as const;
  });
}

/** The names of the groups a user is in. */
export async function groupsOfUser(userId: string): Promise<string[]> {
  const rows = await getDb().groupMember.findMany({ where: { userId }, select: { group: { select: { name: true } } } });
  return rows.map((row) => row.group.name).sort();
}

/**
 * Single sign-on: the user's "oidc" memberships become exactly these groups (created when
 * missing); "manual" ones an admin made are kept. Returns the groups added and removed.
 */
export async function syncSsoGroups(userId: string, groupNames: string[]): Promise<{ added: string[]; removed: string[] }> {
  try {
    return await syncSsoGroupsOnce(userId, groupNames);
  } catch (error) {
    // Two first sign-ins naming the same new group at once: one created it, the other's insert
    // failed (an upsert is a read then an insert). Once more, the group is there.
    if (!isUniqueViolation(error)) throw error;
    return syncSsoGroupsOnce(userId, groupNames);
  }
}

async function syncSsoGroupsOnce(userId: string, groupNames: string[]): Promise<{ added: string[]; removed: string[] }> {
  const wanted = [...new Set(groupNames)].sort();
  return getDb().$transaction(async (tx) => {
    const current = await tx.groupMember.findMany({ where: { userId, source: "oidc" }, include: { group: { select: { name: true } } } });
    const have = new Set(current.map((member) => member.group.name));
    const removed = current.filter((member) => !wanted.includes(member.group.name));
    if (removed.length > 0) await tx.groupMember.deleteMany({ where: { userId, source: "oidc", groupId: { in: removed.map((m) => m.groupId) } } });
    const added: string[] = [];
    for (const name of wanted) {
      if (have.has(name)) continue;
      const group = await tx.group.upsert({ where: { name }, update: {}, create: { id: randomUUID(), name, description: "created by single sign-on" } });
      // A manual membership in the same group stays manual (an admin's decision outlives the claim).
      const existing = await tx.groupMember.findUnique({ where: { groupId_userId: { groupId: group.id, userId } } });
      if (existing) continue;
      await tx.groupMember.create({ data: { groupId: group.id, userId, source: "oidc" } });
      added.push(name);
    }
    return { added, removed: removed.map((member) => member.group.name).sort() };
  });
}
