import { randomUUID } from "node:crypto";
import { getDb } from "./db";
import { isUniqueViolation } from "./unique";
import { hashPassword } from "../security/password";

export type UserRole = "admin" | "user";
export interface PublicUser {
  id: string;
  username: string;
  role: UserRole;
}

export async function findUserByUsername(username: string) {
  return getDb().user.findUnique({ where: { username } });
}

export async function countUsers(): Promise<number> {
  return getDb().user.count();
}

export async function createUser(username: string, password: string, role: UserRole): Promise<PublicUser> {
  const user = await getDb().user.create({
    data: { id: randomUUID(), username, passwordHash: await hashPassword(password), role },
  });
  return { id: user.id, username: user.username, role: user.role };
}

/** Like createUser, but null when the username is taken (say, by another app node starting at the same time). */
export async function createUserUnlessTaken(username: string, password: string, role: UserRole): Promise<PublicUser | null> {
  try {
    return await createUser(username, password, role);
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

export async function setPassword(username: string, password: string): Promise<void> {
  await getDb().user.update({ where: { username }, data: { passwordHash: await hashPassword(password) } });
}

/** A user's email (null clears it): the `{user.email}` of form defaults. */
export async function setEmail(username: string, email: string | null): Promise<void> {
  await getDb().user.update({ where: { username }, data: { email } });
}

export interface UserView extends PublicUser {
  createdAt: string;
  jobs: number;
  email: string | null;
  /** "local" or "oidc" (the provider sets the email). */
  source: string;
}

export async function listUsers(): Promise<UserView[]> {
  const users = await getDb().user.findMany({ orderBy: { username: "asc" }, include: { _count: { select: { jobs: true } } } });
  return users.map((u) => ({
    id: u.id,
    username: u.username,
    role: u.role,
    createdAt: u.createdAt.toISOString(),
    jobs: u._count.jobs,
    email: u.email,
    source: u.source,
  }));
}

export async function countAdmins(): Promise<number> {
  return getDb().user.count({ where: { role: "admin" } });
}

export async function setRole(username: string, role: UserRole): Promise<void> {
  await getDb().user.update({ where: { username }, data: { role } });
}

/** Ends every session and API token of a user (after a password change, a role change, a deletion). */
export async function revokeUserTokens(userId: string): Promise<void> {
  await getDb().authToken.deleteMany({ where: { userId } });
}

/** Deletes a user who has launched no job (jobs keep their launcher for the record). */
export async function deleteUser(username: string): Promise<void> {
  await getDb().user.delete({ where: { username } });
}

/** Single sign-on: the account linked to this "ISSUER#SUB", if any. */
export async function findUserByExternalId(externalId: string) {
  return getDb().user.findUnique({ where: { externalId } });
}

export interface SsoProfile {
  displayName: string | null;
  email: string | null;
}

/**
 * Creates the account of a first single sign-on: source "oidc", no password (an empty hash
 * verifies no password). Null when the username or the external id is taken meanwhile.
 */
export async function createSsoUser(username: string, externalId: string, role: UserRole, profile: SsoProfile): Promise<PublicUser | null> {
  try {
    const user = await getDb().user.create({
      data: { id: randomUUID(), username, passwordHash: "", role, source: "oidc", externalId, ...profile, lastLoginAt: new Date() },
    });
    return { id: user.id, username: user.username, role: user.role };
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** A later single sign-on: the profile, the sign-in time and (when given) the role. */
export async function recordSsoSignIn(userId: string, role: UserRole | null, profile: SsoProfile): Promise<PublicUser> {
  const user = await getDb().user.update({
    where: { id: userId },
    data: { ...profile, lastLoginAt: new Date(), ...(role ? { role } : {}) },
  });
  return { id: user.id, username: user.username, role: user.role };
}
