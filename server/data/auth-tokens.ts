import { randomUUID } from "node:crypto";
import { getDb } from "./db";
import { isUniqueViolation } from "./unique";
import { newSecret, sha256Hex } from "../security/tokens";
import type { PublicUser } from "./users";

/**
 * Kinds of token: a browser session (`pfs_`), a token traded for a password at
 * /api/auth/token (`pfa_`), a named personal token made on the account page or with
 * POST /api/tokens (`pfp_`). All three authenticate as their user, with the user's role as it
 * is at the time of each request.
 */
export type TokenKind = "session" | "api" | "personal";

const PREFIX: Record<TokenKind, string> = { session: "pfs", api: "pfa", personal: "pfp" };

/** A personal token's `lastUsedAt` is written at most this often (a busy script must not write on every request). */
export const LAST_USED_RESOLUTION_MS = 60_000;

export async function issueToken(userId: string, kind: TokenKind, ttlMs: number): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecret(PREFIX[kind]);
  const expiresAt = new Date(Date.now() + ttlMs);
  await getDb().authToken.create({ data: { id: randomUUID(), tokenHash: sha256Hex(token), kind, userId, expiresAt } });
  return { token, expiresAt };
}

export async function userForToken(token: string): Promise<PublicUser | null> {
  const row = await getDb().authToken.findUnique({ where: { tokenHash: sha256Hex(token) }, include: { user: true } });
  const now = Date.now();
  if (!row || row.expiresAt.getTime() <= now) return null;
  if (row.kind === "personal" && (row.lastUsedAt === null || now - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS)) {
    // Conditional, so concurrent requests of one script write once; a revoked row is simply not there.
    await getDb().authToken.updateMany({
      where: { id: row.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: new Date(now - LAST_USED_RESOLUTION_MS) } }] },
      data: { lastUsedAt: new Date(now) },
    });
  }
  return { id: row.user.id, username: row.user.username, role: row.user.role };
}

export async function revokeToken(token: string): Promise<void> {
  await getDb().authToken.deleteMany({ where: { tokenHash: sha256Hex(token) } });
}

/** A personal token as listed: never its secret nor its hash. */
export interface PersonalTokenView {
  id: string;
  name: string;
  /** The owner's username. */
  user: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

const personalSelect = {
  id: true,
  name: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  user: { select: { username: true } },
} as const;

function personalView(row: {
  id: string;
  name: string | null;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  user: { username: string };
}): PersonalTokenView {
  return {
    id: row.id,
    name: row.name ?? "",
    user: row.user.username,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * A new personal token of the user: the secret (shown once) and the stored row's view; null
 * when the user already has a token of that name (the unique index decides, so two requests
 * at once cannot both make one).
 */
export async function createPersonalToken(
  userId: string,
  name: string,
  ttlMs: number,
): Promise<{ token: string; view: PersonalTokenView } | null> {
  const token = newSecret(PREFIX.personal);
  try {
    const row = await getDb().authToken.create({
      data: { id: randomUUID(), tokenHash: sha256Hex(token), kind: "personal", name, userId, expiresAt: new Date(Date.now() + ttlMs) },
      select: personalSelect,
    });
    return { token, view: personalView(row) };
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** Personal tokens not yet expired, of one user or (userId null) of everyone, newest first. */
export async function listPersonalTokens(userId: string | null, now = new Date()): Promise<PersonalTokenView[]> {
  const rows = await getDb().authToken.findMany({
    where: { kind: "personal", expiresAt: { gt: now }, ...(userId === null ? {} : { userId }) },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select: personalSelect,
  });
  return rows.map(personalView);
}

/** How many unexpired personal tokens the user holds, and whether one of them has this name. */
export async function personalTokenStats(userId: string, name: string, now = new Date()): Promise<{ active: number; nameTaken: boolean }> {
  const where = { kind: "personal", userId, expiresAt: { gt: now } };
  const [active, named] = await Promise.all([getDb().authToken.count({ where }), getDb().authToken.count({ where: { ...where, name } })]);
  return { active, nameTaken: named > 0 };
}

/** Expired personal tokens of the user: deleted so their names can be used again. */
export async function deleteExpiredPersonalTokens(userId: string, now = new Date()): Promise<void> {
  await getDb().authToken.deleteMany({ where: { kind: "personal", userId, expiresAt: { lte: now } } });
}

/** The owner of a personal token, or null when there is no such personal token. */
export async function personalTokenOwner(id: string): Promise<string | null> {
  const row = await getDb().authToken.findFirst({ where: { id, kind: "personal" }, select: { userId: true } });
  return row?.userId ?? null;
}

/** Deletes a personal token; false when it was not there (anymore). */
export async function deletePersonalToken(id: string): Promise<boolean> {
  const { count } = await getDb().authToken.deleteMany({ where: { id, kind: "personal" } });
  return count > 0;
}
