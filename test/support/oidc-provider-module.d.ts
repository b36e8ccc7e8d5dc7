/**
 * The few parts of oidc-provider (which ships no types) that test/support/oidc-provider.ts uses.
 */
declare module "oidc-provider" {
  import type { Server } from "node:http";

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface Configuration {
    clients?: Record<string, unknown>[];
    claims?: Record<string, string[] | null>;
    cookies?: { keys?: string[] };
    findAccount?: (ctx: unknown, sub: string) => Promise<Account | undefined>;
    features?: Record<string, { enabled: boolean } & Record<string, unknown>>;
    pkce?: { required?: () => boolean };
    ttl?: Record<string, number>;
    conformIdTokenClaims?: boolean;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    listen(port: number, host: string, callback?: () => void): Server;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
