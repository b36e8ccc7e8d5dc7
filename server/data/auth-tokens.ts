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

/** Who a token is, as authentication needs it: its user (role as of now), its row, kind and scope. */
export interface TokenCredential {
  user: PublicUser;
  tokenId: string;
  kind: TokenKind;
  /** "read" | "launch" | "admin" for personal tokens; null: all the user's rights (server/access/token-scopes.ts). */
  scope: string | null;
  expiresAt: Date;
}

/** The credential behind a token, or null when it is unknown, revoked or expired. */
export async function credentialForToken(token: string): Promise<TokenCredential | null> {
  const row = await getDb().authToken.findUnique({ where: { tokenHash: sha256Hex(token) }, include: { user: true } });
  const now = Date.now();
  if (!row || row.expiresAt.getTime() <= now) return null;
  if (row.kind !== "session" && (row.lastUsedAt === null || now - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS)) {
    // Conditional, so concurrent requests of one script write once; a revoked row is simply not there.
    await getDb().authToken.updateMany({
      where: { id: row.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: new Date(now - LAST_USED_RESOLUTION_MS) } }] },
      data: { lastUsedAt: new Date(now) },
    });
  }
  return {
    user: { id: row.user.id, username: row.user.username, role: row.user.role },
    tokenId: row.id,
    kind: row.kind as TokenKind,
    scope: row.scope,
    expiresAt: row.expiresAt,
  };
}

/** When a token that is not valid now expired, or null when there is no such token (revoked, or never issued). */
export async function expiryOfToken(token: string): Promise<Date | null> {
  const row = await getDb().authToken.findUnique({ where: { tokenHash: sha256Hex(token) }, select: { expiresAt: true } });
  return row?.expiresAt ?? null;
}

export async function userForToken(token: string): Promise<PublicUser | null> {
  return (await credentialForToken(token))?.user ?? null;
}

/** Ends a token, and those it made (the parentId foreign key cascades, on both databases). */
export async function revokeToken(token: string): Promise<void> {
  await getDb().authToken.deleteMany({ where: { tokenHash: sha256Hex(token) } });
}

/**
 * Ends every session and token of the user but one (a password change keeps the credential
 * that made it). The kept one is first detached from the token that made it, if any, so the
 * cascade of its parent's deletion does not take it along.
 */
export async function revokeUserTokensExcept(userId: string, keepId: string): Promise<void> {
  await getDb().$transaction([
    getDb().authToken.updateMany({ where: { id: keepId, userId }, data: { parentId: null } }),
    getDb().authToken.deleteMany({ where: { userId, id: { not: keepId } } }),
  ]);
}

/** Kinds listed and revoked on the Tokens page and at /api/tokens: personal and sign-in tokens, never sessions. */
const LISTED_KINDS = ["personal", "api"];

/** A personal or sign-in token as listed: never its secret nor its hash. */
export interface PersonalTokenView {
  id: string;
  /** "personal": made with POST /api/tokens; "sign-in": traded for a password at POST /api/auth/token. */
  kind: "personal" | "sign-in";
  /** The name its user gave it; "" for a sign-in token. */
  name: string;
  /** As stored: null for sign-in tokens and personal tokens made before scopes (all the user's rights). */
  scope: string | null;
  /** The token it was made with, if a token made it (revoked with it). */
  parentId: string | null;
  /** The owner's username. */
  user: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

const personalSelect = {
  id: true,
  kind: true,
  name: true,
  scope: true,
  parentId: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  user: { select: { username: true } },
} as const;

function personalView(row: {
  id: string;
  kind: string;
  name: string | null;
  scope: string | null;
  parentId: string | null;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  user: { username: string };
}): PersonalTokenView {
  return {
    id: row.id,
    kind: row.kind === "api" ? "sign-in" : "personal",
    name: row.name ?? "",
    scope: row.scope,
    parentId: row.parentId,
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
  expiresAt: Date,
  scope: string,
  parentId: string | null,
): Promise<{ token: string; view: PersonalTokenView } | null> {
  const token = newSecret(PREFIX.personal);
  try {
    const row = await getDb().authToken.create({
      data: { id: randomUUID(), tokenHash: sha256Hex(token), kind: "personal", name, userId, expiresAt, scope, parentId },
      select: personalSelect,
    });
    return { token, view: personalView(row) };
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** Personal and sign-in tokens not yet expired, of one user or (userId null) of everyone, newest first. */
export async function listPersonalTokens(userId: string | null, now = new Date()): Promise<PersonalTokenView[]> {
  const rows = await getDb().authToken.findMany({
    where: { kind: { in: LISTED_KINDS }, expiresAt: { gt: now }, ...(userId === null ? {} : { userId }) },
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

/** The owner of a personal or sign-in token, or null when there is no such token. */
export async function personalTokenOwner(id: string): Promise<string | null> {
  const row = await getDb().authToken.findFirst({ where: { id, kind: { in: LISTED_KINDS } }, select: { userId: true } });
  return row?.userId ?? null;
}

/** Deletes a personal or sign-in token, and those it made (cascade); false when it was not there (anymore). */
export async function deletePersonalToken(id: string): Promise<boolean> {
  const { count } = await getDb().authToken.deleteMany({ where: { id, kind: { in: LISTED_KINDS } } });
  return count > 0;
}
