import { randomUUID } from "node:crypto";
import { getDb } from "./db";
import { newSecret, sha256Hex } from "../security/tokens";
import type { PublicUser } from "./users";

export type TokenKind = "session" | "api";

export async function issueToken(userId: string, kind: TokenKind, ttlMs: number): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecret(kind === "session" ? "pfs" : "pfa");
  const expiresAt = new Date(Date.now() + ttlMs);
  await getDb().authToken.create({ data: { id: randomUUID(), tokenHash: sha256Hex(token), kind, userId, expiresAt } });
  return { token, expiresAt };
}

export async function userForToken(token: string): Promise<PublicUser | null> {
  const row = await getDb().authToken.findUnique({ where: { tokenHash: sha256Hex(token) }, include: { user: true } });
  if (!row || row.expiresAt.getTime() <= Date.now()) return null;
  return { id: row.user.id, username: row.user.username, role: row.user.role };
}

export async function revokeToken(token: string): Promise<void> {
  await getDb().authToken.deleteMany({ where: { tokenHash: sha256Hex(token) } });
}
