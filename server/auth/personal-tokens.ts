/**
 * Personal API tokens: named bearer tokens a user makes for scripts (account page, or
 * POST /api/tokens), lists, and revokes; admins list and revoke anyone's. The list also holds
 * the user's sign-in tokens (traded for a password at POST /api/auth/token), revoked the same way.
 *
 * - A token authenticates as its user with the user's role at the time of each request
 *   (authenticate.ts reads the user's row on every request): it never holds more rights than
 *   its user, and a demotion applies to it at once.
 * - Its scope narrows that further: `read`, `launch` or `admin` (everything the user may; the
 *   default), enforced for every request by requireUser (server/access/token-scopes.ts).
 * - Only its SHA-256 is stored; the secret (`pfp_…`) is answered once, at creation.
 * - It lasts 1 to 365 days (30 unless asked otherwise, in days or as a date) and cannot be
 *   renewed; an expired one is refused and no longer listed (its name can be used again).
 * - A token made with a token (bearer) has no more scope and no longer life than its parent,
 *   and is revoked with it.
 * - Revoking deletes the row (and those of the tokens it made): the next request is refused.
 * - It ends with its user's account, and, like every session and token of the user, when an
 *   admin resets the user's password or changes their role, or when the user changes their own
 *   password (users.ts: all but the session or token that made the change).
 */
import { recordAudit } from "../audit/record";
import { z } from "zod";
import { DomainError } from "../errors";
import { TOKEN_SCOPES, effectiveScope, scopeCovers } from "../access/token-scopes";
import {
  createPersonalToken,
  deleteExpiredPersonalTokens,
  deletePersonalToken,
  listPersonalTokens,
  personalTokenOwner,
  personalTokenStats,
  type PersonalTokenView,
  type TokenCredential,
} from "../data/auth-tokens";
import { findUserByUsername, type PublicUser } from "../data/users";

const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_TOKEN_DAYS = 30;
export const MAX_TOKEN_DAYS = 365;
/** Unexpired personal tokens one user may hold. */
export const MAX_ACTIVE_TOKENS = 50;

/**
 * Characters a name may not hold: controls (C0, DEL, C1), format characters (Cf: the bidi
 * overrides and isolates U+202A-202E, U+2066-2069, zero-width characters, …), line and
 * paragraph separators, private use and surrogates. A name shown in a list must read as what
 * it is: "invoice\u202Etxt.exe" would display as "invoiceexe.txt".
 */
const UNSAFE_NAME_CHAR = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}]/u;

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

export const newTokenSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1, "is required")
      .max(100, "must be at most 100 characters")
      .superRefine((name, ctx) => {
        const bad = UNSAFE_NAME_CHAR.exec(name);
        if (bad)
          ctx.addIssue({
            code: "custom",
            message: `must not contain control characters, nor format or bidirectional ones (${codePoint(bad[0])})`,
          });
      }),
    scope: z
      .enum(TOKEN_SCOPES, `must be one of ${TOKEN_SCOPES.map((scope) => `"${scope}"`).join(", ")}`)
      .optional()
      .meta({ description: "read, launch or admin (everything you may); left out: admin, or the scope of the token making it" }),
    expiresInDays: z
      .number()
      .int("must be a whole number of days")
      .min(1, "must be at least 1 day")
      .max(MAX_TOKEN_DAYS, `must be at most ${MAX_TOKEN_DAYS} days`)
      .optional(),
    expiresAt: z
      .string()
      .datetime({ offset: true, message: "must be a date and time (ISO 8601, e.g. 2027-01-31T12:00:00Z)" })
      .optional()
      .meta({ description: "when it expires (instead of expiresInDays): in the future, at most 365 days from now" }),
  })
  .superRefine((input, ctx) => {
    if (input.expiresAt === undefined) return;
    if (input.expiresInDays !== undefined) {
      ctx.addIssue({ code: "custom", path: ["expiresAt"], message: "give expiresAt or expiresInDays, not both" });
      return;
    }
    const at = Date.parse(input.expiresAt);
    if (at <= Date.now()) ctx.addIssue({ code: "custom", path: ["expiresAt"], message: "must be in the future" });
    else if (at > Date.now() + MAX_TOKEN_DAYS * DAY_MS) {
      ctx.addIssue({ code: "custom", path: ["expiresAt"], message: `must be at most ${MAX_TOKEN_DAYS} days from now` });
    }
  });

export const tokenListQuerySchema = z.strictObject({
  user: z.string().min(1, "must name a user").max(100).optional(),
  all: z.enum(["1", "true"], "must be 1").optional(),
});

/**
 * Makes a personal token for the credential's user: the secret, shown once, and how it is
 * listed. Made with a token (a bearer personal or sign-in token, not a browser session), it
 * has no more scope and no longer life than that token, and it is revoked with it.
 */
export async function createToken(
  credential: TokenCredential,
  input: z.infer<typeof newTokenSchema>,
): Promise<{ token: string; view: PersonalTokenView }> {
  const actor = credential.user;
  const madeByToken = credential.kind !== "session";
  const have = effectiveScope(credential.scope);
  const scope = input.scope ?? have;
  if (!scopeCovers(have, scope)) {
    throw new DomainError("forbidden", `a token of scope "${have}" cannot make a token of scope "${scope}"`, {
      scope: `must be at most "${have}", the scope of the token making it`,
    });
  }
  const asked =
    input.expiresAt !== undefined ? new Date(input.expiresAt) : new Date(Date.now() + (input.expiresInDays ?? DEFAULT_TOKEN_DAYS) * DAY_MS);
  // Never past the token that makes it: when it ends, so does this one.
  const expiresAt = madeByToken && credential.expiresAt < asked ? credential.expiresAt : asked;
  const nameTaken = () =>
    new DomainError("conflict", `you already have a token named "${input.name}"`, { name: "is already used by another of your tokens" });
  await deleteExpiredPersonalTokens(actor.id);
  const { active, nameTaken: taken } = await personalTokenStats(actor.id, input.name);
  if (taken) throw nameTaken();
  if (active >= MAX_ACTIVE_TOKENS) {
    throw new DomainError("conflict", `you have ${active} tokens, the most one may hold (${MAX_ACTIVE_TOKENS}); revoke one first`);
  }
  // The check above gives the message; the unique index settles two requests at once.
  const created = await createPersonalToken(actor.id, input.name, expiresAt, scope, madeByToken ? credential.tokenId : null);
  if (!created) throw nameTaken();
  created.view = shown(created.view);
  await recordAudit({
    actor: actor.username,
    action: "token.create",
    target: `token:${created.view.id}`,
    outcome: "success",
    details: {
      name: input.name,
      scope,
      expiresAt: expiresAt.toISOString(),
      ...(madeByToken ? { madeBy: `token:${credential.tokenId}` } : {}),
    },
  });
  return created;
}

/** A token as answered: its effective scope (sign-in tokens and tokens made before scopes: admin). */
const shown = (view: PersonalTokenView): PersonalTokenView => ({ ...view, scope: effectiveScope(view.scope) });

/** The actor's own tokens; admins may ask for one user's (`user`) or everyone's (`all`). */
export async function listTokens(actor: PublicUser, query: z.infer<typeof tokenListQuerySchema>): Promise<PersonalTokenView[]> {
  if (query.all) {
    if (actor.role !== "admin") throw new DomainError("forbidden", "listing everyone's tokens needs the admin role");
    return (await listPersonalTokens(null)).map(shown);
  }
  if (query.user !== undefined && query.user !== actor.username) {
    if (actor.role !== "admin") throw new DomainError("forbidden", "listing another user's tokens needs the admin role");
    const user = await findUserByUsername(query.user);
    if (!user) throw new DomainError("not_found", `no user named "${query.user}"`);
    return (await listPersonalTokens(user.id)).map(shown);
  }
  return (await listPersonalTokens(actor.id)).map(shown);
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
