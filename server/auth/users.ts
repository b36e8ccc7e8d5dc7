/**
 * Managing accounts: admins create users, set roles, reset passwords and delete unused
 * accounts; everyone can change their own password. Rules that protect the installation
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

export const userChangeSchema = z
  .strictObject({ role: z.enum(["admin", "user"]).optional(), password: passwordSchema.optional() })
  .refine((change) => change.role !== undefined || change.password !== undefined, "send role and/or password");

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
  // New credentials or rights take effect at once: no session keeps the old ones.
  if (user.id !== actor.id || change.role) await revokeUserTokens(user.id);
  else await revokeUserTokensExcept(user.id, actorTokenId);
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
