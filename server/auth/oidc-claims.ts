/**
 * From the provider's claims to a Playform account: the user name, the groups (through
 * PLAYFORM_OIDC_GROUP_MAP) and whether the user is an admin (PLAYFORM_OIDC_ADMIN_VALUES). Pure.
 */
import { SSO_GROUP_NAME, type OidcProviderSettings } from "./oidc-settings";

/** SSO user names: like local ones (lowercase letters, digits, . _ -) plus @, so an e-mail address fits. */
const SSO_USERNAME = /^[a-z0-9][a-z0-9._@-]{1,62}$/;

export type Claims = Record<string, unknown>;

export interface SsoIdentity {
  /** "ISSUER#SUB": the one key an SSO account is found by. */
  externalId: string;
  username: string;
  displayName: string | null;
  email: string | null;
  /** Playform groups from the groups claim, sorted. */
  groups: string[];
  /** From the admin values; null when PLAYFORM_OIDC_ADMIN_VALUES is empty (the role is then left as it is). */
  admin: boolean | null;
}

/** The claim's values as strings: a list of strings, or one string (some providers send one group so). */
export function claimValues(claims: Claims, name: string): string[] {
  const value = claims[name];
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

/**
 * Claim values → Playform group names: mapped values become their group; unmapped ones are
 * ignored unless the map holds "*", which passes them through when they are valid group names.
 */
export function mapGroups(values: readonly string[], groupMap: OidcProviderSettings["groupMap"]): string[] {
  const groups = new Set<string>();
  for (const value of values) {
    const mapped = groupMap.map.get(value);
    if (mapped) groups.add(mapped);
    else if (groupMap.passThrough && SSO_GROUP_NAME.test(value)) groups.add(value);
  }
  return [...groups].sort();
}

/** Whether any raw claim value is an admin value; null when no admin values are configured. */
export function isAdminByClaim(values: readonly string[], adminValues: readonly string[]): boolean | null {
  if (adminValues.length === 0) return null;
  return values.some((value) => adminValues.includes(value));
}

/** The user name: the configured claim, else email, else sub; lowercased; the first that is a valid name. */
export function usernameFromClaims(claims: Claims, usernameClaim: string): string | null {
  for (const name of [usernameClaim, "email", "sub"]) {
    const value = claims[name];
    if (typeof value !== "string") continue;
    const candidate = value.trim().toLowerCase();
    if (SSO_USERNAME.test(candidate)) return candidate;
  }
  return null;
}

const text = (value: unknown, max: number): string | null =>
  typeof value === "string" && value.trim() ? value.trim().slice(0, max) : null;

/** The identity in the claims, or null when no claim gives a usable user name. */
export function identityFromClaims(
  issuer: string,
  claims: Claims,
  settings: Pick<OidcProviderSettings, "groupsClaim" | "groupMap" | "adminValues" | "usernameClaim">,
): SsoIdentity | null {
  const sub = claims.sub;
  if (typeof sub !== "string" || !sub) return null;
  const username = usernameFromClaims(claims, settings.usernameClaim);
  if (!username) return null;
  const values = claimValues(claims, settings.groupsClaim);
  return {
    externalId: `${issuer}#${sub}`,
    username,
    displayName: text(claims.name, 200),
    email: text(claims.email, 320),
    groups: mapGroups(values, settings.groupMap),
    admin: isAdminByClaim(values, settings.adminValues),
  };
}
