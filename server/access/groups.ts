/**
 * Managing groups (admins): create, delete, and set the members. Each change is recorded in the
 * audit trail (`group.create`, `group.delete`, `group.members` with who was added and removed).
 * What groups allow is decided by server/access/policy.ts from the forms' `access:`.
 */
import { z } from "zod";
import { DomainError } from "../errors";
import { recordAudit } from "../audit/record";
import { createGroup, deleteGroup, listGroups, setGroupMembers, type GroupView } from "../data/groups";
import type { PublicUser } from "../data/users";
import { groupNameSchema } from "./group-name";

export const newGroupSchema = z.strictObject({
  name: groupNameSchema,
  description: z.string().trim().max(500, "must be at most 500 characters").default(""),
});

export const groupMembersSchema = z.strictObject({
  users: z.array(z.string().min(1, "must not be empty").max(100)).max(10_000, "at most 10,000 members"),
});

export { listGroups };

export async function addGroup(actor: PublicUser, input: z.infer<typeof newGroupSchema>): Promise<GroupView> {
  const group = await createGroup(input.name, input.description);
  if (!group) {
    await recordAudit({
      actor: actor.username,
      action: "group.create",
      target: `group:${input.name}`,
      outcome: "failure",
      details: { reason: "taken" },
    });
    throw new DomainError("conflict", `a group named "${input.name}" exists`, { name: "is taken" });
  }
  await recordAudit({ actor: actor.username, action: "group.create", target: `group:${group.name}`, outcome: "success" });
  return group;
}

export async function removeGroup(actor: PublicUser, name: string): Promise<void> {
  if (!(await deleteGroup(name))) throw new DomainError("not_found", `no group named "${name}"`);
  await recordAudit({ actor: actor.username, action: "group.delete", target: `group:${name}`, outcome: "success" });
}

/** Replaces the group's members (usernames); all or nothing: an unknown user changes nothing. */
export async function replaceGroupMembers(actor: PublicUser, name: string, usernames: readonly string[]): Promise<void> {
  const outcome = await setGroupMembers(name, [...usernames]);
  if (!outcome.ok) {
    if ("unknownGroup" in outcome) throw new DomainError("not_found", `no group named "${name}"`);
    throw new DomainError("validation_failed", `no user named ${outcome.unknownUsers.map((u) => `"${u}"`).join(", ")}: nothing changed`, {
      users: `unknown: ${outcome.unknownUsers.join(", ")}`,
    });
  }
  await recordAudit({
    actor: actor.username,
    action: "group.members",
    target: `group:${name}`,
    outcome: "success",
    details: { added: outcome.added, removed: outcome.removed },
  });
}
