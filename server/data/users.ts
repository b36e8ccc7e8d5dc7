import { randomUUID } from "node:crypto";
import { getDb } from "./db";
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

export async function setPassword(username: string, password: string): Promise<void> {
  await getDb().user.update({ where: { username }, data: { passwordHash: await hashPassword(password) } });
}
