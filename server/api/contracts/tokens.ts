/** Contracts of personal API tokens (server/auth/personal-tokens.ts). */
import { z } from "zod";
import { newTokenSchema, tokenListQuerySchema } from "../../auth/personal-tokens";
import { endpoint } from "../contract";

export const tokenViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    user: z.string().meta({ description: "the owner's username" }),
    createdAt: z.string(),
    expiresAt: z.string(),
    lastUsedAt: z.string().nullable().meta({ description: "last request made with it, to the minute; null if never used" }),
  })
  .meta({ id: "PersonalToken" });

export const createToken = endpoint({
  method: "post",
  path: "/api/tokens",
  summary: "Make a personal API token: its secret is answered this once",
  description:
    "`name` (1-100 characters, unique among your unexpired tokens), `expiresInDays` (whole days, 1-365, 30 when left out). At most 50 unexpired tokens per user. The token authenticates as you, with your role at the time of each request.",
  tags: ["tokens"],
  access: "user",
  body: { schema: newTokenSchema },
  responses: {
    201: {
      description: "made; `token` is the secret, shown only now",
      schema: tokenViewSchema.extend({ token: z.string() }).meta({ id: "NewPersonalToken" }),
    },
  },
  errors: { 409: "a token of yours has that name, or you hold the most tokens allowed" },
});

export const listTokens = endpoint({
  method: "get",
  path: "/api/tokens",
  summary: "Your personal API tokens (admins: `?user=NAME` or `?all=1` for others')",
  tags: ["tokens"],
  access: "user",
  query: tokenListQuerySchema,
  responses: {
    200: { description: "unexpired tokens, newest first; never their secrets", schema: z.object({ tokens: z.array(tokenViewSchema) }) },
  },
  errors: { 403: "another user's tokens, for a non-admin", 404: "no such user" },
});

export const revokeToken = endpoint({
  method: "delete",
  path: "/api/tokens/[id]",
  summary: "Revoke a personal API token: yours, or anyone's for an admin",
  tags: ["tokens"],
  access: "user",
  params: z.object({ id: z.string() }),
  responses: { 204: { description: "revoked: refused from now on" } },
});
