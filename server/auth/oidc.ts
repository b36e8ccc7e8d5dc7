/**
 * Single sign-on with OpenID Connect: the authorization code flow with PKCE (S256), state and
 * nonce, through openid-client (discovery, the authorization URL, the code exchange with the ID
 * token validated by the library, the userinfo request).
 *
 * - startSignOn: a new flow (oidc-flow.ts cookie) and the provider's authorization URL.
 * - finishSignOn: checks the provider's answer against the flow, exchanges the code, finds or
 *   creates the account (oidc-claims.ts), sets its role and its "oidc" group memberships from
 *   the claims, and issues the normal session token. Every failure is an OidcFailure code the
 *   login page turns into a sentence (OIDC_FAILURE_MESSAGES); details go to the log only.
 * - endSessionUrl: RP-initiated logout at the provider, when it offers an end_session_endpoint.
 */
import { recordAudit } from "../audit/record";
import * as client from "openid-client";
import { issueToken } from "../data/auth-tokens";
import { syncSsoGroups } from "../data/groups";
import {
  createSsoUser,
  findUserByExternalId,
  findUserByUsername,
  recordSsoSignIn,
  revokeUserTokens,
  type PublicUser,
  type SsoProfile,
  type UserRole,
} from "../data/users";
import { loggerFor } from "../logging/logger";
import { identityFromClaims, type Claims, type SsoIdentity } from "./oidc-claims";
import { OIDC_FLOW_TTL_MS, openFlow, sealFlow, type OidcFlow } from "./oidc-flow";
import { signOnSettings, type OidcProviderSettings } from "./oidc-settings";
import { SESSION_TTL_MS, isHttps } from "./session";

const log = loggerFor({ component: "oidc" });

export const OIDC_CALLBACK_PATH = "/api/auth/oidc/callback";

export type OidcFailure =
  "not_configured" | "denied" | "state" | "expired" | "unreachable" | "rejected" | "no_username" | "account_conflict";

/** What the login page says for each failure (?sso_error=<code>): never a stack, never the provider's free text. */
export const OIDC_FAILURE_MESSAGES: Record<OidcFailure, string> = {
  not_configured: "Single sign-on is not configured on this server.",
  denied: "The sign-in provider did not sign you in (you cancelled, or it refused). Try again.",
  state: "The sign-in answer did not match a sign-in started from this browser. Start again from this page.",
  expired: "The sign-in took too long or was started in another browser. Start again from this page.",
  unreachable: "The sign-in provider cannot be reached right now. Try again later or ask an administrator.",
  rejected: "The sign-in provider's answer could not be verified. Try again; if it persists, ask an administrator.",
  no_username: "The sign-in provider sent no usable user name for you. Ask an administrator.",
  account_conflict:
    "A Playform account with your user name already exists and is not linked to single sign-on. Ask an administrator to rename or remove it.",
};

export function oidcFailureMessage(code: string | undefined): string | null {
  return code && Object.hasOwn(OIDC_FAILURE_MESSAGES, code) ? OIDC_FAILURE_MESSAGES[code as OidcFailure] : null;
}

export class OidcSignOnError extends Error {
  constructor(
    readonly failure: OidcFailure,
    detail: string,
  ) {
    super(detail);
    this.name = "OidcSignOnError";
  }
}

/** What the login page and GET /api/auth/providers tell about the ways to sign in. */
export interface AuthProviders {
  localLogin: boolean;
  oidc: { label: string; loginUrl: string } | null;
}

export function authProviders(): AuthProviders {
  const { oidc, localLogin } = signOnSettings();
  return { localLogin, oidc: oidc ? { label: oidc.label, loginUrl: "/api/auth/oidc/login" } : null };
}

function requireOidc(): OidcProviderSettings {
  const { oidc } = signOnSettings();
  if (!oidc) throw new OidcSignOnError("not_configured", "PLAYFORM_OIDC_ISSUER is not set");
  return oidc;
}

// The provider's metadata, per process: fetched at the first sign-in, again after a failure.
let discovered: { key: string; config: Promise<client.Configuration> } | undefined;

function providerConfig(settings: OidcProviderSettings): Promise<client.Configuration> {
  const key = `${settings.issuer}\n${settings.clientId}`;
  if (discovered?.key !== key) {
    const insecure = new URL(settings.issuer).protocol === "http:"; // loopback only (oidc-settings.ts)
    const config = client
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        undefined,
        settings.clientSecret ? client.ClientSecretPost(settings.clientSecret) : client.None(),
        { timeout: 10, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}) },
      )
      .catch((error: unknown) => {
        discovered = undefined;
        log().warn({ err: error, issuer: settings.issuer }, `OpenID Connect discovery at ${settings.issuer} failed`);
        throw new OidcSignOnError("unreachable", `discovery at ${settings.issuer} failed`);
      });
    discovered = { key, config };
  }
  return discovered.config;
}

/** The URL browsers reach Playform at: PLAYFORM_PUBLIC_URL, else this request's scheme (X-Forwarded-Proto) and Host. */
export function publicBaseUrl(request: Request): string {
  const configured = signOnSettings().oidc?.publicUrl;
  if (configured) return configured;
  const host = request.headers.get("host") ?? new URL(request.url).host;
  return `${isHttps(request) ? "https" : "http"}://${host}`;
}

/** Only same-site paths are accepted as `next` ("//evil.example" or "https://…" would make an open redirect). */
export function safeNextPath(next: string | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next;
}

/** Begins a sign-on: the provider's authorization URL and the flow cookie's value. */
export async function startSignOn(baseUrl: string, next: string): Promise<{ authorizationUrl: string; flowCookie: string }> {
  const settings = requireOidc();
  const config = await providerConfig(settings);
  const flow: OidcFlow = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    codeVerifier: client.randomPKCECodeVerifier(),
    redirectUri: `${baseUrl}${OIDC_CALLBACK_PATH}`,
    next,
    expiresAt: Date.now() + OIDC_FLOW_TTL_MS,
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: flow.redirectUri,
    scope: settings.scopes,
    response_type: "code",
    code_challenge: await client.calculatePKCECodeChallenge(flow.codeVerifier),
    code_challenge_method: "S256",
    state: flow.state,
    nonce: flow.nonce,
  });
  return { authorizationUrl: url.href, flowCookie: sealFlow(flow) };
}

function isNetworkFailure(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === "AbortError" || e.name === "TimeoutError" || (e instanceof TypeError && /fetch failed/i.test(e.message))) return true;
    if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EHOSTUNREACH/.test(String((e as { code?: unknown }).code ?? ""))) return true;
  }
  return false;
}

/**
 * Completes a sign-on from the provider's redirect (its query string) and the flow cookie:
 * the signed-in user, a session token for the cookie, and where to go.
 */
export async function finishSignOn(
  query: URLSearchParams,
  flowCookieValue: string | null,
): Promise<{ user: PublicUser; token: string; next: string }> {
  try {
    return await completeSignOn(query, flowCookieValue);
  } catch (error) {
    // Recorded in the audit trail like a failed password sign-in: the reason's code, never the provider's text.
    const reason = error instanceof OidcSignOnError ? error.failure : "internal";
    await recordAudit({ actor: null, action: "auth.login", outcome: "failure", details: { method: "oidc", reason } });
    throw error;
  }
}

async function completeSignOn(
  query: URLSearchParams,
  flowCookieValue: string | null,
): Promise<{ user: PublicUser; token: string; next: string }> {
  const settings = requireOidc();
  const flow = openFlow(flowCookieValue);
  if (!flow || flow.expiresAt <= Date.now())
    throw new OidcSignOnError("expired", flow ? "the flow cookie expired" : "no valid flow cookie");
  if (query.get("state") !== flow.state) throw new OidcSignOnError("state", "state does not match the flow cookie");
  const providerError = query.get("error");
  if (providerError) throw new OidcSignOnError("denied", `the provider answered error=${providerError.slice(0, 100)}`);
  const config = await providerConfig(settings);

  let claims: Claims;
  try {
    // The URL the provider redirected to, with its parameters (behind a proxy request.url is not it).
    const currentUrl = new URL(flow.redirectUri);
    currentUrl.search = query.toString();
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    claims = { ...tokens.claims() };
    // Many providers put profile and group claims in the userinfo answer only.
    if (config.serverMetadata().userinfo_endpoint) {
      claims = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
    }
  } catch (error) {
    const failure = isNetworkFailure(error) ? "unreachable" : "rejected";
    log().warn({ err: error }, `single sign-on: the code exchange failed (${failure})`);
    throw new OidcSignOnError(failure, "the code exchange failed");
  }

  const identity = identityFromClaims(settings.issuer, claims, settings);
  if (!identity) throw new OidcSignOnError("no_username", `no usable ${settings.usernameClaim}, email or sub claim`);
  const profile = { displayName: identity.displayName, email: identity.email };
  const role: UserRole | null = identity.admin === null ? null : identity.admin ? "admin" : "user";

  const user = await accountFor(identity, role, profile);
  if (!user) {
    log().warn(
      { user: identity.username, externalId: identity.externalId },
      `single sign-on refused: the account "${identity.username}" exists and is not linked to ${identity.externalId}`,
    );
    throw new OidcSignOnError("account_conflict", `username ${identity.username} is taken`);
  }
  const groups = await syncSsoGroups(user.id, identity.groups);
  log().info(
    { user: user.username, role: user.role, groupsAdded: groups.added, groupsRemoved: groups.removed },
    `single sign-on of "${user.username}"`,
  );
  const { token } = await issueToken(user.id, "session", SESSION_TTL_MS);
  await recordAudit({
    actor: user.username,
    action: "auth.login",
    target: `user:${user.username}`,
    outcome: "success",
    details: { method: "oidc", role: user.role, groupsAdded: groups.added, groupsRemoved: groups.removed },
  });
  return { user, token, next: flow.next };
}

/**
 * The account of this identity: the linked one (profile, sign-in time and role updated), else a
 * new one. Null when the name belongs to an account not linked to this identity: never taken over.
 */
async function accountFor(identity: SsoIdentity, role: UserRole | null, profile: SsoProfile): Promise<PublicUser | null> {
  for (let look = 0; look < 2; look++) {
    const linked = await findUserByExternalId(identity.externalId);
    if (linked) {
      const user = await recordSsoSignIn(linked.id, role, profile);
      // A role taken away at the provider ends the account's other sessions and tokens too.
      if (user.role !== linked.role) await revokeUserTokens(user.id);
      return user;
    }
    if (await findUserByUsername(identity.username)) return null;
    const created = await createSsoUser(identity.username, identity.externalId, role ?? "user", profile);
    if (created) return created;
    // Taken meanwhile: by this identity's first sign-in in another tab (found linked at the next look), or by another account.
  }
  return null;
}

/**
 * Where to send the browser after Playform's own sign-out: the provider's end_session_endpoint
 * (RP-initiated logout, with client_id and post_logout_redirect_uri = <base>/login) when it has
 * one, else Playform's login page. No id_token_hint: Playform does not keep ID tokens.
 */
export async function endSessionUrl(baseUrl: string): Promise<string> {
  const { oidc } = signOnSettings();
  if (!oidc) return "/login";
  try {
    const config = await providerConfig(oidc);
    if (!config.serverMetadata().end_session_endpoint) return "/login";
    return client.buildEndSessionUrl(config, { client_id: oidc.clientId, post_logout_redirect_uri: `${baseUrl}/login` }).href;
  } catch {
    return "/login"; // provider unreachable: Playform's session has ended anyway
  }
}
