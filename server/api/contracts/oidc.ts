/** Contracts of single sign-on (OpenID Connect) and of the sign-in methods (server/auth/oidc.ts). */
import { z } from "zod";
import { endpoint } from "../contract";

export const authProvidersSchema = z
  .object({
    /** False: password sign-in only for the break-glass account `admin` (PLAYFORM_LOCAL_LOGIN=false). */
    localLogin: z.boolean(),
    oidc: z.object({ label: z.string(), loginUrl: z.string() }).nullable(),
  })
  .meta({ id: "AuthProviders" });

export const authProviders = endpoint({
  method: "get",
  path: "/api/auth/providers",
  summary: "How one can sign in here: password sign-in on or off, single sign-on and its button label",
  tags: ["auth"],
  access: "public",
  responses: { 200: { description: "the sign-in methods", schema: authProvidersSchema } },
});

export const oidcLogin = endpoint({
  method: "get",
  path: "/api/auth/oidc/login",
  summary: "Start single sign-on: redirects to the OpenID Connect provider",
  description:
    "Authorization code flow with PKCE (S256), state and nonce, kept in a 10-minute encrypted HttpOnly cookie. " +
    "`next` is where to land once signed in: a same-site path, anything else lands on `/`. " +
    "When single sign-on is not configured or the provider is unreachable, redirects to `/login?sso_error=<code>`.",
  tags: ["auth"],
  access: "public",
  query: z.object({ next: z.string().optional().meta({ description: "a same-site path such as /jobs" }) }),
  responses: { 303: { description: "to the provider's authorization endpoint, or to the login page with sso_error" } },
});

export const oidcCallback = endpoint({
  method: "get",
  path: "/api/auth/oidc/callback",
  summary: "The provider's redirect back: signs in and redirects to `next`",
  description:
    "Exchanges the code (the ID token is validated), creates the account at its first sign-in, sets its role and " +
    "its single sign-on groups from the claims, sets the session cookie. Any failure (the provider's error, a " +
    "state that does not match, an expired flow, the provider unreachable, a name taken by an unlinked account) " +
    "redirects to `/login?sso_error=<code>`, where the page says what happened.",
  tags: ["auth"],
  access: "public",
  query: z.object({
    code: z.string().optional(),
    state: z.string().optional(),
    error: z.string().optional(),
    error_description: z.string().optional(),
    iss: z.string().optional(),
  }),
  responses: { 303: { description: "signed in (Set-Cookie holds the session) to `next`, or to the login page with sso_error" } },
});

export const oidcLogout = endpoint({
  method: "get",
  path: "/api/auth/oidc/logout",
  summary: "Sign out here and at the provider (RP-initiated logout)",
  description:
    "Ends the Playform session, then redirects to the provider's end_session_endpoint with client_id and " +
    "post_logout_redirect_uri=<public URL>/login, or to /login when the provider has none.",
  tags: ["auth"],
  access: "public",
  responses: { 303: { description: "to the provider's end-session endpoint or to /login" } },
});
