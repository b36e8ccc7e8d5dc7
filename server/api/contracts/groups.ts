/** Contracts of groups (server/access/groups.ts), which forms name in form.yaml `access:`. */
import { z } from "zod";
import { groupMembersSchema, newGroupSchema } from "../../access/groups";
import { endpoint } from "../contract";

export const groupViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    createdAt: z.string(),
    members: z.array(
      z.object({
        username: z.string(),
        source: z.enum(["manual", "oidc"]).meta({ description: "manual: an admin's; oidc: from the single sign-on groups claim" }),
      }),
    ),
  })
  .meta({ id: "Group" });

const nameParams = z.object({ name: z.string() });

export const listGroupsEndpoint = endpoint({
  method: "get",
  path: "/api/groups",
  summary: "Every group with its members",
  tags: ["groups"],
  access: "admin",
  responses: { 200: { description: "the groups", schema: z.object({ groups: z.array(groupViewSchema) }) } },
});

export const createGroupEndpoint = endpoint({
  method: "post",
  path: "/api/groups",
  summary: "Create a group",
  tags: ["groups"],
  access: "admin",
  body: { schema: newGroupSchema },
  responses: { 201: { description: "created", schema: z.object({ group: groupViewSchema }) } },
  errors: { 409: "the name is taken", 422: "a bad name; `fields` says which" },
});

export const deleteGroupEndpoint = endpoint({
  method: "delete",
  path: "/api/groups/[name]",
  summary: "Delete a group (forms naming it in access: then match nobody through it)",
  tags: ["groups"],
  access: "admin",
  params: nameParams,
  responses: { 204: { description: "deleted" } },
  errors: { 404: "no such group" },
});

export const setGroupMembersEndpoint = endpoint({
  method: "put",
  path: "/api/groups/[name]/members",
  summary: "Replace the group's members with exactly these users",
  tags: ["groups"],
  access: "admin",
  params: nameParams,
  body: { schema: groupMembersSchema },
  responses: { 204: { description: "replaced" } },
  errors: { 404: "no such group", 422: "an unknown user (nothing changed)" },
});
