/**
 * Personal API tokens: named bearer tokens a user makes for scripts (account page, or
 * POST /api/tokens), lists, and revokes; admins list and revoke anyone's.
 *
 * - A token authenticates as its user with the user's role at the time of each request
 *   (authenticate.ts reads the user's row on every request): it never holds more rights than
 *   its user, and a demotion applies to it at once.
 * - Only its SHA-256 is stored; the secret (`pfp_…`) is answered once, at creation.
 * - It lasts 1 to 365 days (30 unless asked otherwise) and cannot be renewed; an expired one is
 *   refused and no longer listed (its name can be used again).
 * - Revoking deletes the row: the next request with it is refused.
 * - It ends with its user's account, and, like every session and token of the user, when an
 *   admin resets the user's password or changes their role (users.ts). Changing your own
 *   password keeps your tokens: revoke them on the account page if they leaked.
 */
import { recordAudit } from "../audit/record";
import { z } from "zod";
import { DomainError } from "../errors";
import {
  createPersonalToken,
  deleteExpiredPersonalTokens,
  deletePersonalToken,
  listPersonalTokens,
  personalTokenOwner,
  personalTokenStats,
  type PersonalTokenView,
} from "../data/auth-tokens";
import { findUserByUsername, type PublicUser } from "../data/users";

export const DEFAULT_TOKEN_DAYS = 30;
export const MAX_TOKEN_DAYS = 365;
/** Unexpired personal tokens one user may hold. */
export const MAX_ACTIVE_TOKENS = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

export const newTokenSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, "is required")
    .max(100, "must be at most 100 characters")
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters"),
  expiresInDays: z
    .number()
    .int("must be a whole number of days")
    .min(1, "must be at least 1 day")
    .max(MAX_TOKEN_DAYS, `must be at most ${MAX_TOKEN_DAYS} days`)
    .default(DEFAULT_TOKEN_DAYS),
});

export const tokenListQuerySchema = z.strictObject({
  user: z.string().min(1, "must name a user").max(100).optional(),
  all: z.enum(["1", "true"], "must be 1").optional(),
});

/** Makes a personal token for the actor: the secret, shown once, and how it is listed. */
export async function createToken(
  actor: PublicUser,
  input: z.infer<typeof newTokenSchema>,
): Promise<{ token: string; view: PersonalTokenView }> {
  const nameTaken = () =>
    new DomainError("conflict", `you already have a token named "${input.name}"`, { name: "is already used by another of your tokens" });
  await deleteExpiredPersonalTokens(actor.id);
  const { active, nameTaken: taken } = await personalTokenStats(actor.id, input.name);
  if (taken) throw nameTaken();
  if (active >= MAX_ACTIVE_TOKENS) {
    throw new DomainError("conflict", `you have ${active} tokens, the most one may hold (${MAX_ACTIVE_TOKENS}); revoke one first`);
  }
  // The check above gives the message; the unique index settles two requests at once.
  const created = await createPersonalToken(actor.id, input.name, input.expiresInDays * DAY_MS);
  if (!created) throw nameTaken();
  await recordAudit({
    actor: actor.username,
    action: "token.create",
    target: `token:${created.view.id}`,
    outcome: "success",
    details: { name: input.name, expiresInDays: input.expiresInDays },
  });
  return created;
}

/** The actor's own tokens; admins may ask for one user's (`user`) or everyone's (`all`). */
export async function listTokens(actor: PublicUser, query: z.infer<typeof tokenListQuerySchema>): Promise<PersonalTokenView[]> {
  if (query.all) {
    if (actor.role !== "admin") throw new DomainError("forbidden", "listing everyone's tokens needs the admin role");
    return listPersonalTokens(null);
  }
  if (query.user !== undefined && query.user !== actor.username) {
    if (actor.role !== "admin") throw new DomainError("forbidden", "listing another user's tokens needs the admin role");
    const user = await findUserByUsername(query.user);
    if (!user) throw new DomainError("not_found", `no user named "${query.user}"`);
    return listPersonalTokens(user.id);
  }
  return listPersonalTokens(actor.id);
}

/** Revokes a personal token: the actor's own, or anyone's for an admin. Another's token is "not found" to others. */
export async function revokeToken(actor: PublicUser, id: string): Promise<void> {
  const owner = await personalTokenOwner(id);
  if (owner === null || (owner !== actor.id && actor.role !== "admin")) throw new DomainError("not_found", `no token ${id}`);
  await deletePersonalToken(id);
  await recordAudit({
    actor: actor.username,
    action: "token.revoke",
    target: `token:${id}`,
    outcome: "success",
    details: { ownedBySelf: owner === actor.id },
  });
}
