/**
 * Managing accounts: admins create users, set roles, reset passwords, set emails and delete
 * unused accounts; everyone can change their own password and email. Rules that protect the installation
 * (the last admin stays an admin, a user with job history is not deleted) live here.
 */
import { z } from "zod";
import { DomainError } from "../errors";
import { audited, errorDetails, recordAudit } from "../audit/record";
import {
  countAdmins,
  createUser,
  deleteUser,
  findUserByUsername,
  revokeUserTokens,
  setEmail,
  setPassword,
  setRole,
  type PublicUser,
} from "../data/users";
import { revokeUserTokensExcept } from "../data/auth-tokens";
import { verifyPassword } from "../security/password";

const USERNAME = /^[a-z0-9][a-z0-9._-]{1,62}$/;
export const passwordSchema = z.string().min(10, "must be at least 10 characters").max(200, "must be at most 200 characters");

export const newUserSchema = z.strictObject({
  username: z.string().regex(USERNAME, "must be 2-63 lowercase letters, digits, . _ -"),
  password: passwordSchema,
  role: z.enum(["admin", "user"]).default("user"),
});

/** Loose on purpose (mail servers decide the rest): something@domain.tld, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
/**
 * A user's email, the `{user.email}` of form defaults: trimmed; null or "" clears it. Single
 * sign-on accounts get theirs from the provider at each sign-in (server/auth/oidc).
 */
export const emailSchema = z
  .string()
  .trim()
  .max(254, "must be at most 254 characters")
  .refine((text) => text === "" || EMAIL.test(text), "must be an email address like ops@example.org")
  .transform((text) => (text === "" ? null : text))
  .nullable();

export const userChangeSchema = z
  .strictObject({ role: z.enum(["admin", "user"]).optional(), password: passwordSchema.optional(), email: emailSchema.optional() })
  .refine(
    (change) => change.role !== undefined || change.password !== undefined || change.email !== undefined,
    "send role, password and/or email",
  );

export const ownProfileSchema = z.strictObject({ email: emailSchema });

/** What a user's account page shows and may change. */
export interface Profile {
  email: string | null;
  displayName: string | null;
  /** "local" (a password here) or "oidc" (single sign-on: the provider sets the email). */
  source: string;
}

export const ownPasswordSchema = z.strictObject({ currentPassword: z.string().min(1, "is required"), newPassword: passwordSchema });

async function requireAccount(username: string) {
  const user = await findUserByUsername(username);
  if (!user) throw new DomainError("not_found", `no user named "${username}"`);
  return user;
}

export async function addUser(actor: PublicUser, input: z.infer<typeof newUserSchema>): Promise<PublicUser> {
  const audit = { actor: actor.username, action: "user.create", target: `user:${input.username}`, details: { role: input.role } } as const;
  return audited(audit, async () => {
    if (await findUserByUsername(input.username)) {
      throw new DomainError("conflict", `a user named "${input.username}" already exists`);
    }
    return createUser(input.username, input.password, input.role);
  });
}

/**
 * An admin changes a user's role and/or password. The user's sessions and tokens end; an
 * admin changing their own password keeps the session or token that made the change
 * (`actorTokenId`), as a change through POST /api/auth/password does.
 */
export async function changeUser(
  actor: PublicUser,
  username: string,
  change: z.infer<typeof userChangeSchema>,
  actorTokenId: string,
): Promise<void> {
  const audit = { actor: actor.username, target: `user:${username}` };
  let user: Awaited<ReturnType<typeof requireAccount>>;
  try {
    user = await requireAccount(username);
    if (change.role === "user" && user.role === "admin" && (await countAdmins()) <= 1) {
      throw new DomainError("conflict", `"${username}" is the last admin; make someone else an admin first`);
    }
  } catch (error) {
    await recordAudit({ ...audit, action: change.role ? "user.role" : "user.password", outcome: "failure", details: errorDetails(error) });
    throw error;
  }
  if (change.role) {
    await setRole(username, change.role);
    await recordAudit({ ...audit, action: "user.role", outcome: "success", details: { from: user.role, to: change.role } });
  }
  if (change.password) {
    await setPassword(username, change.password);
    await recordAudit({ ...audit, action: "user.password", outcome: "success" });
  }
  if (change.email !== undefined) await changeEmail({ ...audit, action: "user.email" }, user, change.email);
  // New credentials or rights take effect at once: no session keeps the old ones. An email
  // is neither, so changing only that ends nothing.
  const credentials = change.password !== undefined || change.role !== undefined;
  if (credentials) {
    if (user.id !== actor.id || change.role) await revokeUserTokens(user.id);
    else await revokeUserTokensExcept(user.id, actorTokenId);
  }
}

async function changeEmail(
  audit: { actor: string; action: "user.email" | "auth.email"; target: string },
  user: { username: string; source: string },
  email: string | null,
): Promise<void> {
  if (user.source !== "local") {
    const error = new DomainError(
      "conflict",
      `"${user.username}" signs in through single sign-on: the provider sets the email at each sign-in`,
    );
    await recordAudit({ ...audit, outcome: "failure", details: errorDetails(error) });
    throw error;
  }
  await setEmail(user.username, email);
  await recordAudit({ ...audit, outcome: "success", details: { cleared: email === null } });
}

export function profileOf(user: { email: string | null; displayName: string | null; source: string }): Profile {
  return { email: user.email, displayName: user.displayName, source: user.source };
}

/** The signed-in user's own profile. */
export async function ownProfile(actor: PublicUser): Promise<Profile> {
  return profileOf(await requireAccount(actor.username));
}

/** Sets your own email (null clears it): the `{user.email}` default of forms. */
export async function changeOwnEmail(actor: PublicUser, email: string | null): Promise<Profile> {
  const user = await requireAccount(actor.username);
  await changeEmail({ actor: actor.username, action: "auth.email", target: `user:${actor.username}` }, user, email);
  return profileOf({ ...user, email });
}

export async function removeUser(actor: PublicUser, username: string): Promise<void> {
  await audited({ actor: actor.username, action: "user.delete", target: `user:${username}` }, () => deleteAccount(actor, username));
}

async function deleteAccount(actor: PublicUser, username: string): Promise<void> {
  const user = await requireAccount(username);
  if (user.id === actor.id) throw new DomainError("conflict", "you cannot delete your own account");
  if (user.role === "admin" && (await countAdmins()) <= 1) throw new DomainError("conflict", `"${username}" is the last admin`);
  try {
    await deleteUser(username);
  } catch (error) {
    // Jobs reference their launcher: history is not rewritten.
    if (typeof error === "object" && error !== null && "code" in error && error.code === "P2003") {
      throw new DomainError("conflict", `"${username}" has launched jobs; change their role or password instead of deleting`);
    }
    throw error;
  }
}

/**
 * Changes the actor's own password. Every other session and token of theirs ends (a leaked one
 * must not outlive the change); the one that made the change (`keepTokenId`) stays.
 */
export async function changeOwnPassword(actor: PublicUser, current: string, next: string, keepTokenId: string): Promise<void> {
  const user = await requireAccount(actor.username);
  const audit = { actor: actor.username, action: "auth.password", target: `user:${actor.username}` } as const;
  if (!(await verifyPassword(current, user.passwordHash))) {
    await recordAudit({ ...audit, outcome: "failure", details: { error: "validation_failed", reason: "current password is wrong" } });
    throw new DomainError("validation_failed", "currentPassword: is wrong", { currentPassword: "is wrong" });
  }
  await setPassword(actor.username, next);
  await revokeUserTokensExcept(user.id, keepTokenId);
  await recordAudit({ ...audit, outcome: "success", details: { otherSessionsAndTokens: "revoked" } });
}
