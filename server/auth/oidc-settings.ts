/**
 * Single sign-on settings (OpenID Connect), read from the environment with zod. server/config.ts
 * checks them at boot with the rest of the configuration, so a bad value stops the start with
 * the variable's name; route handlers read them through oidcSettings() (same environment).
 *
 * docs/security.md, "Single sign-on (OpenID Connect)", documents every variable.
 */
import { z } from "zod";

const bool = z.enum(["1", "0", "true", "false", "yes", "no"]).transform((v) => ["1", "true", "yes"].includes(v));
const list = (raw: string) =>
  raw
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);

/** A group name Playform creates from a claim value (mapped target or passed-through value). */
export const SSO_GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** `claim-value=group,…`; `*` alone (or as one entry) passes unmapped values through as group names. */
export interface GroupMap {
  map: Map<string, string>;
  passThrough: boolean;
}

const groupMapSchema = z.string().transform((raw, ctx): GroupMap => {
  const map = new Map<string, string>();
  let passThrough = false;
  for (const entry of list(raw)) {
    if (entry === "*") {
      passThrough = true;
      continue;
    }
    const eq = entry.lastIndexOf("=");
    const from = eq > 0 ? entry.slice(0, eq).trim() : "";
    const to = eq > 0 ? entry.slice(eq + 1).trim() : "";
    if (!from || !to) {
      ctx.addIssue({
        code: "custom",
        message: `"${entry}" is not claim-value=group (entries are separated by commas; "*" passes values through)`,
      });
      return z.NEVER;
    }
    if (!SSO_GROUP_NAME.test(to)) {
      ctx.addIssue({ code: "custom", message: `group "${to}" must be 1-63 letters, digits, . _ - (starting with a letter or digit)` });
      return z.NEVER;
    }
    map.set(from, to);
  }
  return { map, passThrough };
});

/** The environment variables of single sign-on; spread into server/config.ts's schema. */
export const oidcEnvShape = {
  /** The provider's issuer URL (discovery at <issuer>/.well-known/openid-configuration). Unset: no single sign-on. */
  PLAYFORM_OIDC_ISSUER: z
    .string()
    .trim()
    .transform((s) => s || undefined)
    .pipe(
      z
        .url({ error: "must be the provider's issuer URL, e.g. https://sso.example.com/realms/main" })
        .refine((s) => {
          if (!URL.canParse(s)) return true; // reported by z.url()
          const url = new URL(s);
          return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
        }, "must be https (plain http only on localhost, for tests)")
        .optional(),
    )
    .optional(),
  PLAYFORM_OIDC_CLIENT_ID: z.string().trim().optional(),
  /** Unset: a public client (PKCE only, no client authentication). */
  PLAYFORM_OIDC_CLIENT_SECRET: z.string().trim().optional(),
  PLAYFORM_OIDC_SCOPES: z
    .string()
    .trim()
    .default("openid profile email")
    .refine((s) => s.split(/\s+/).includes("openid"), 'must include "openid" (scopes are separated by spaces)'),
  PLAYFORM_OIDC_GROUPS_CLAIM: z.string().trim().min(1, "must name a claim, e.g. groups").default("groups"),
  PLAYFORM_OIDC_GROUP_MAP: groupMapSchema.prefault(""),
  PLAYFORM_OIDC_ADMIN_VALUES: z.string().transform(list).default([]),
  PLAYFORM_OIDC_USERNAME_CLAIM: z.string().trim().min(1, "must name a claim, e.g. preferred_username").default("preferred_username"),
  PLAYFORM_OIDC_LABEL: z.string().trim().min(1).max(60, "must be at most 60 characters").default("single sign-on"),
  /**
   * The URL browsers reach Playform at (scheme, host, port, path prefix none): the redirect URI
   * is <this>/api/auth/oidc/callback. Unset: taken from each request (Host, X-Forwarded-Proto).
   */
  PLAYFORM_PUBLIC_URL: z
    .string()
    .trim()
    .transform((s) => s.replace(/\/+$/, "") || undefined)
    .pipe(
      z
        .url({ error: "must be the URL browsers open Playform at, e.g. https://playform.example.com" })
        .refine((s) => !URL.canParse(s) || /^https?:$/.test(new URL(s).protocol), "must be http or https")
        .refine((s) => !URL.canParse(s) || new URL(s).pathname === "/", "must not have a path: Playform is served at the root")
        .optional(),
    )
    .optional(),
  /** false: password sign-in only for the break-glass account `admin`. */
  PLAYFORM_LOCAL_LOGIN: bool.default(true),
};

const oidcEnvSchema = z.object(oidcEnvShape);
type OidcEnv = z.infer<typeof oidcEnvSchema>;

/** Checks across variables, as zod issues on the variable to fix (server/config.ts runs it too). */
export function checkOidcEnv(env: OidcEnv, ctx: z.RefinementCtx): void {
  if (env.PLAYFORM_OIDC_ISSUER && !env.PLAYFORM_OIDC_CLIENT_ID) {
    ctx.addIssue({ code: "custom", path: ["PLAYFORM_OIDC_CLIENT_ID"], message: "is required when PLAYFORM_OIDC_ISSUER is set" });
  }
  if (!env.PLAYFORM_OIDC_ISSUER && env.PLAYFORM_OIDC_CLIENT_ID) {
    ctx.addIssue({ code: "custom", path: ["PLAYFORM_OIDC_ISSUER"], message: "is required when PLAYFORM_OIDC_CLIENT_ID is set" });
  }
}

export interface OidcProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  scopes: string;
  groupsClaim: string;
  groupMap: GroupMap;
  adminValues: string[];
  usernameClaim: string;
  label: string;
  publicUrl: string | undefined;
}

export interface SignOnSettings {
  /** Null: single sign-on is not configured. */
  oidc: OidcProviderSettings | null;
  localLogin: boolean;
}

export function signOnSettingsFrom(env: OidcEnv): SignOnSettings {
  const oidc =
    env.PLAYFORM_OIDC_ISSUER && env.PLAYFORM_OIDC_CLIENT_ID
      ? {
          issuer: env.PLAYFORM_OIDC_ISSUER,
          clientId: env.PLAYFORM_OIDC_CLIENT_ID,
          clientSecret: env.PLAYFORM_OIDC_CLIENT_SECRET || undefined,
          scopes: env.PLAYFORM_OIDC_SCOPES.split(/\s+/).join(" "),
          groupsClaim: env.PLAYFORM_OIDC_GROUPS_CLAIM,
          groupMap: env.PLAYFORM_OIDC_GROUP_MAP,
          adminValues: env.PLAYFORM_OIDC_ADMIN_VALUES,
          usernameClaim: env.PLAYFORM_OIDC_USERNAME_CLAIM,
          label: env.PLAYFORM_OIDC_LABEL,
          publicUrl: env.PLAYFORM_PUBLIC_URL,
        }
      : null;
  return { oidc, localLogin: env.PLAYFORM_LOCAL_LOGIN };
}

/** Parses the sign-on settings; throws naming each bad variable (the app's start has checked them already). */
export function parseSignOnSettings(env: Readonly<Record<string, string | undefined>>): SignOnSettings {
  const parsed = oidcEnvSchema.superRefine(checkOidcEnv).safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid configuration:\n  ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n  ")}`);
  }
  return signOnSettingsFrom(parsed.data);
}

let cached: SignOnSettings | undefined;

/** This process's sign-on settings (from process.env, parsed once). */
export function signOnSettings(): SignOnSettings {
  cached ??= parseSignOnSettings(process.env);
  return cached;
}
