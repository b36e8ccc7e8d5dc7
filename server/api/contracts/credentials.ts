/** Contracts of credentials (admins); no answer ever holds a secret (server/api/contract.ts). */
import { z } from "zod";
import { createCredentialSchema, replaceCredentialSchema } from "../../credentials/kinds";
import { endpoint } from "../contract";

const credentialSchema = z
  .object({
    name: z.string(),
    kind: z.enum(["ssh", "vault", "secret"]),
    description: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    usedBy: z.array(z.string()),
  })
  .meta({ id: "Credential" });

export const listCredentials = endpoint({
  method: "get",
  path: "/api/credentials",
  summary: "Every credential by name: never a secret",
  tags: ["credentials"],
  access: "admin",
  responses: { 200: { description: "the credentials", schema: z.object({ credentials: z.array(credentialSchema) }) } },
});

export const createCredential = endpoint({
  method: "post",
  path: "/api/credentials",
  summary: "Create a credential: `{name, kind, description?, ...payload}`",
  tags: ["credentials"],
  access: "admin",
  body: { schema: createCredentialSchema },
  responses: { 201: { description: "created", schema: z.object({ credential: credentialSchema }) } },
  errors: { 409: "the name is taken" },
});

const nameParams = z.object({ name: z.string() });

export const replaceCredential = endpoint({
  method: "put",
  path: "/api/credentials/[name]",
  summary: "A new secret for a credential, same kind",
  tags: ["credentials"],
  access: "admin",
  params: nameParams,
  body: { schema: replaceCredentialSchema },
  responses: { 200: { description: "replaced", schema: z.object({ credential: credentialSchema }) } },
});

export const deleteCredential = endpoint({
  method: "delete",
  path: "/api/credentials/[name]",
  summary: "Delete a credential no form names",
  tags: ["credentials"],
  access: "admin",
  params: nameParams,
  responses: { 204: { description: "deleted" } },
  errors: { 409: "a form still names it (the message lists the forms)" },
});
