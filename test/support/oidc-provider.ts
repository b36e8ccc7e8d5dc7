/**
 * A real OpenID Connect provider for tests: oidc-provider (the npm package) on a free loopback
 * port, over http (allowed for loopback by Playform's settings), with one confidential client
 * for a Playform at the given URL, an in-memory account store the test changes between
 * sign-ins (name, e-mail, groups), and oidc-provider's development interactions: a login page
 * taking any account id (the "login" field) with any password, then a consent page ("Continue").
 */
import type { Server } from "node:http";
import { createServer } from "node:net";
import Provider from "oidc-provider";

export interface TestAccount {
  preferred_username?: string;
  email?: string;
  name?: string;
  groups?: string[];
}

export interface RunningOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Adds or replaces the account with this sub (the login page's "login" field). */
  setAccount(sub: string, account: TestAccount): void;
  /** The env of a Playform signing in with this provider. */
  playformEnv(): Record<string, string>;
  stop(): Promise<void>;
}

/** A free loopback TCP port (for the app, whose redirect URI the provider must know first). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startOidcProvider(appUrl: string): Promise<RunningOidcProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "playform-test";
  const clientSecret = "playform-test-secret-0123456789";
  const accounts = new Map<string, TestAccount>();

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${appUrl}/api/auth/oidc/callback`],
        post_logout_redirect_uris: [`${appUrl}/login`],
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    // Groups come with the profile scope, as Keycloak's or Okta's groups mapper would add them.
    claims: { openid: ["sub"], profile: ["name", "preferred_username", "groups"], email: ["email"] },
    findAccount: async (_ctx, sub) => {
      if (!accounts.has(sub)) return undefined;
      // Read at each request: a change by the test shows at the next sign-in.
      return { accountId: sub, claims: () => ({ sub, ...accounts.get(sub) }) };
    },
    cookies: { keys: ["oidc-provider-test-cookie-key"] },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  });
  const server: Server = await new Promise((resolve) => {
    const listening: Server = provider.listen(port, "127.0.0.1", () => resolve(listening));
  });

  return {
    issuer,
    clientId,
    clientSecret,
    setAccount: (sub, account) => accounts.set(sub, account),
    playformEnv: () => ({
      PLAYFORM_OIDC_ISSUER: issuer,
      PLAYFORM_OIDC_CLIENT_ID: clientId,
      PLAYFORM_OIDC_CLIENT_SECRET: clientSecret,
    }),
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
