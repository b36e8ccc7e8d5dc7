/** Contracts of sign-in, tokens and account management (server/api/contract.ts). */
import { z } from "zod";
import { newUserSchema, ownPasswordSchema, ownProfileSchema, userChangeSchema } from "../../auth/users";
import { endpoint } from "../contract";

export const publicUserSchema = z.object({ id: z.string(), username: z.string(), role: z.enum(["admin", "user"]) }).meta({ id: "User" });

export const loginBodySchema = z.strictObject({ username: z.string().min(1, "is required"), password: z.string().min(1, "is required") });

export const login = endpoint({
  method: "post",
  path: "/api/auth/login",
  summary: "Sign in: sets the session cookie",
  tags: ["auth"],
  access: "public",
  body: { schema: loginBodySchema },
  responses: { 200: { description: "signed in; Set-Cookie holds the session", schema: z.object({ user: publicUserSchema }) } },
  errors: { 401: "wrong credentials", 429: "throttled; Retry-After says when to try again" },
});

export const logout = endpoint({
  method: "post",
  path: "/api/auth/logout",
  summary: "Sign out: ends the bearer token sent (and the tokens it made), else the cookie's session, and clears the cookie",
  tags: ["auth"],
  access: "public",
  responses: { 204: { description: "signed out" } },
});

export const profileSchema = z
  .object({
    email: z.string().nullable().meta({ description: "the `{user.email}` of form defaults" }),
    displayName: z.string().nullable(),
    source: z.string().meta({ description: '"local", or "oidc": single sign-on, whose provider sets the email' }),
  })
  .meta({ id: "Profile" });

export const me = endpoint({
  method: "get",
  path: "/api/auth/me",
  summary: "Who is signed in",
  tags: ["auth"],
  access: "user",
  responses: { 200: { description: "the user and their profile", schema: z.object({ user: publicUserSchema, profile: profileSchema }) } },
});

export const changeOwnProfile = endpoint({
  method: "patch",
  path: "/api/auth/me",
  summary: 'Set your own email (null or "" clears it): the {user.email} default of forms',
  tags: ["auth"],
  access: "user",
  body: { schema: ownProfileSchema },
  responses: { 200: { description: "the user and their profile", schema: z.object({ user: publicUserSchema, profile: profileSchema }) } },
  errors: { 409: "a single sign-on account: its provider sets the email" },
});

export const changeOwnPassword = endpoint({
  method: "post",
  path: "/api/auth/password",
  summary: "Change your own password: every other session and token of yours ends",
  tags: ["auth"],
  access: "user",
  body: { schema: ownPasswordSchema },
  responses: { 204: { description: "changed" } },
});

export const token = endpoint({
  method: "post",
  path: "/api/auth/token",
  summary: "Trade HTTP Basic credentials for a bearer token (scripts, CI)",
  tags: ["auth"],
  access: "public",
  description:
    "Send `Authorization: Basic …` (UTF-8, no NUL). Throttled together with the login. The token (30 days, all your rights) is listed at GET /api/tokens as a `sign-in` token, revoked there or by POST /api/auth/logout with it, and ends when you change your password.",
  responses: { 201: { description: "a bearer token", schema: z.object({ token: z.string(), expiresAt: z.string() }) } },
  errors: { 400: "malformed Basic credentials", 401: "missing or wrong credentials", 429: "throttled; Retry-After says when to try again" },
});

export const userViewSchema = z.object({
  id: z.string(),
  username: z.string(),
  role: z.enum(["admin", "user"]),
  createdAt: z.string(),
  /** How many jobs the user launched. */
  jobs: z.number().int().nonnegative(),
  email: z.string().nullable(),
  source: z.string().meta({ description: '"local", or "oidc": single sign-on, whose provider sets the email' }),
});

export const listUsers = endpoint({
  method: "get",
  path: "/api/users",
  summary: "Every account",
  tags: ["users"],
  access: "admin",
  responses: { 200: { description: "the users", schema: z.object({ users: z.array(userViewSchema) }) } },
});

export const addUser = endpoint({
  method: "post",
  path: "/api/users",
  summary: "Create an account",
  tags: ["users"],
  access: "admin",
  body: { schema: newUserSchema },
  responses: { 201: { description: "created", schema: z.object({ user: publicUserSchema }) } },
  errors: { 409: "the name is taken" },
});

const usernameParams = z.object({ username: z.string() });

export const changeUser = endpoint({
  method: "patch",
  path: "/api/users/[username]",
  summary: "Change a user's role, password and/or email: after a role or password change their sessions and tokens end",
  tags: ["users"],
  access: "admin",
  params: usernameParams,
  body: { schema: userChangeSchema },
  responses: { 204: { description: "changed" } },
  errors: { 409: "demoting the last admin, or an email for a single sign-on account" },
});

export const removeUser = endpoint({
  method: "delete",
  path: "/api/users/[username]",
  summary: "Delete an account that launched no job",
  tags: ["users"],
  access: "admin",
  params: usernameParams,
  responses: { 204: { description: "deleted" } },
  errors: { 409: "your own account, the last admin, or a user who launched jobs" },
});
