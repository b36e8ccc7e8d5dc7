/** Contracts of personal API tokens (server/auth/personal-tokens.ts). */
import { z } from "zod";
import { newTokenSchema, tokenListQuerySchema } from "../../auth/personal-tokens";
import { endpoint } from "../contract";
import { TOKEN_SCOPES } from "../../access/token-scopes";

export const tokenViewSchema = z
  .object({
    id: z.string(),
    kind: z
      .enum(["personal", "sign-in"])
      .meta({ description: "personal: made here; sign-in: traded for a password at POST /api/auth/token" }),
    name: z.string().meta({ description: "the name its user gave it; empty for a sign-in token" }),
    scope: z.enum(TOKEN_SCOPES).meta({ description: "read, launch, or admin (everything its user may)" }),
    parentId: z.string().nullable().meta({ description: "the token it was made with; revoking that one revokes this one" }),
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
    "`name` (1-100 characters without control, format or bidirectional characters, unique among your unexpired tokens), `scope` (`read`: GET requests only; `launch`: also launch, abort, approve, reject and relaunch jobs; `admin`: everything you may; left out: `admin`, or the scope of the token making it), `expiresInDays` (whole days, 1-365, 30 when left out) or `expiresAt` (a date and time within 365 days). At most 50 unexpired tokens per user. The token authenticates as you, with your role at the time of each request. Made with a bearer token, it has no more scope and no longer life than that token (a longer life is cut to the parent's) and is revoked with it.",
  tags: ["tokens"],
  access: "user",
  body: { schema: newTokenSchema },
  responses: {
    201: {
      description: "made; `token` is the secret, shown only now",
      schema: tokenViewSchema.extend({ token: z.string() }).meta({ id: "NewPersonalToken" }),
    },
  },
  errors: {
    403: "a scope wider than that of the token making it (`fields.scope`), or a cross-site request",
    409: "a token of yours has that name, or you hold the most tokens allowed",
  },
});

export const listTokens = endpoint({
  method: "get",
  path: "/api/tokens",
  summary: "Your personal and sign-in tokens (admins: `?user=NAME` or `?all=1` for others')",
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
  summary: "Revoke a personal or sign-in token, and the tokens it made: yours, or anyone's for an admin",
  tags: ["tokens"],
  access: "user",
  params: z.object({ id: z.string() }),
  responses: { 204: { description: "revoked: refused from now on" } },
});
