/**
 * Single sign-on without a provider: the settings (bad values name the variable), and the
 * claims → user name, groups and admin role mapping.
 */
import { describe, expect, it } from "vitest";
import { loadAppConfig } from "@/server/config";
import { identityFromClaims, mapGroups, usernameFromClaims } from "@/server/auth/oidc-claims";
import { parseSignOnSettings, type GroupMap } from "@/server/auth/oidc-settings";
import { oidcFailureMessage, safeNextPath } from "@/server/auth/oidc";

const ISSUER = "https://sso.example.com/realms/main";
const base = { PLAYFORM_OIDC_ISSUER: ISSUER, PLAYFORM_OIDC_CLIENT_ID: "playform" };

function configError(env: Record<string, string>): string {
  try {
    loadAppConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the configuration was accepted");
}

describe("sign-on settings", () => {
  it("are off without an issuer; password sign-in is on by default", () => {
    expect(parseSignOnSettings({})).toEqual({ oidc: null, localLogin: true });
    expect(parseSignOnSettings({ PLAYFORM_LOCAL_LOGIN: "false" }).localLogin).toBe(false);
  });

  it("have defaults for scopes, claims and label", () => {
    const { oidc } = parseSignOnSettings(base);
    expect(oidc).toMatchObject({
      issuer: ISSUER,
      clientId: "playform",
      clientSecret: undefined,
      scopes: "openid profile email",
      groupsClaim: "groups",
      usernameClaim: "preferred_username",
      label: "single sign-on",
      adminValues: [],
      publicUrl: undefined,
    });
    expect(oidc!.groupMap.passThrough).toBe(false);
    expect(oidc!.groupMap.map.size).toBe(0);
  });

  it("parse the group map, admin values and public URL", () => {
    const { oidc } = parseSignOnSettings({
      ...base,
      PLAYFORM_OIDC_GROUP_MAP: " ldap-dba = dba, cn=ops=ops ,*",
      PLAYFORM_OIDC_ADMIN_VALUES: "ldap-admins, platform-owners",
      PLAYFORM_PUBLIC_URL: "https://playform.example.com/",
    });
    expect([...oidc!.groupMap.map]).toEqual([
      ["ldap-dba", "dba"],
      ["cn=ops", "ops"],
    ]);
    expect(oidc!.groupMap.passThrough).toBe(true);
    expect(oidc!.adminValues).toEqual(["ldap-admins", "platform-owners"]);
    expect(oidc!.publicUrl).toBe("https://playform.example.com");
  });

  it("stop the start naming the variable when a value is wrong", () => {
    expect(configError({ PLAYFORM_OIDC_ISSUER: ISSUER })).toMatch(/PLAYFORM_OIDC_CLIENT_ID: is required when PLAYFORM_OIDC_ISSUER is set/);
    expect(configError({ PLAYFORM_OIDC_CLIENT_ID: "x" })).toMatch(/PLAYFORM_OIDC_ISSUER: is required/);
    expect(configError({ ...base, PLAYFORM_OIDC_ISSUER: "sso.example.com" })).toMatch(
      /PLAYFORM_OIDC_ISSUER: must be the provider's issuer URL/,
    );
    expect(configError({ ...base, PLAYFORM_OIDC_ISSUER: "http://sso.example.com" })).toMatch(/PLAYFORM_OIDC_ISSUER: must be https/);
    expect(configError({ ...base, PLAYFORM_OIDC_SCOPES: "profile email" })).toMatch(/PLAYFORM_OIDC_SCOPES: must include "openid"/);
    expect(configError({ ...base, PLAYFORM_OIDC_GROUP_MAP: "ldap-dba" })).toMatch(
      /PLAYFORM_OIDC_GROUP_MAP: "ldap-dba" is not claim-value=group/,
    );
    expect(configError({ ...base, PLAYFORM_OIDC_GROUP_MAP: "a=no spaces" })).toMatch(/PLAYFORM_OIDC_GROUP_MAP: group "no spaces" must be/);
    expect(configError({ ...base, PLAYFORM_PUBLIC_URL: "https://x.example.com/playform" })).toMatch(
      /PLAYFORM_PUBLIC_URL: must not have a path/,
    );
    expect(configError({ PLAYFORM_LOCAL_LOGIN: "maybe" })).toMatch(/PLAYFORM_LOCAL_LOGIN/);
  });

  it("accept plain http for a loopback issuer only (tests)", () => {
    expect(parseSignOnSettings({ ...base, PLAYFORM_OIDC_ISSUER: "http://127.0.0.1:9000" }).oidc?.issuer).toBe("http://127.0.0.1:9000");
  });
});

describe("claims to an account", () => {
  const groupMap: GroupMap = {
    map: new Map([
      ["ldap-dba", "dba"],
      ["ldap-ops", "ops"],
    ]),
    passThrough: false,
  };
  const settings = { groupsClaim: "groups", groupMap, adminValues: ["ldap-admins"], usernameClaim: "preferred_username" };

  it("maps groups through the map and ignores unmapped values unless * passes them through", () => {
    expect(mapGroups(["ldap-ops", "ldap-dba", "other", "ldap-dba"], groupMap)).toEqual(["dba", "ops"]);
    const through = { map: groupMap.map, passThrough: true };
    expect(mapGroups(["ldap-dba", "web", "/keycloak/path", "with space"], through)).toEqual(["dba", "web"]);
  });

  it("builds the identity: external id, user name, profile, groups, admin", () => {
    const identity = identityFromClaims(
      ISSUER,
      { sub: "abc-123", preferred_username: "Carol", email: "carol@example.com", name: "Carol C", groups: ["ldap-dba", "ldap-admins"] },
      settings,
    );
    expect(identity).toEqual({
      externalId: `${ISSUER}#abc-123`,
      username: "carol",
      displayName: "Carol C",
      email: "carol@example.com",
      groups: ["dba"],
      admin: true,
    });
    expect(identityFromClaims(ISSUER, { sub: "x1", preferred_username: "dave", groups: "ldap-ops" }, settings)).toMatchObject({
      groups: ["ops"],
      admin: false,
    });
  });

  it("leaves the role alone when no admin values are configured", () => {
    expect(identityFromClaims(ISSUER, { sub: "x1", preferred_username: "dave" }, { ...settings, adminValues: [] })?.admin).toBeNull();
  });

  it("falls back from the user name claim to email, then sub; no usable one: null", () => {
    expect(usernameFromClaims({ sub: "s-1", preferred_username: "Bad Name!", email: "Eve@Example.com" }, "preferred_username")).toBe(
      "eve@example.com",
    );
    expect(usernameFromClaims({ sub: "s-1" }, "preferred_username")).toBe("s-1");
    expect(usernameFromClaims({ sub: "upn-x", upn: "frank" }, "upn")).toBe("frank");
    expect(identityFromClaims(ISSUER, { sub: "!" }, settings)).toBeNull();
    expect(identityFromClaims(ISSUER, { preferred_username: "nosub" }, settings)).toBeNull();
  });
});

describe("sign-on edges", () => {
  it("keeps next same-site", () => {
    expect(safeNextPath("/jobs?status=failed")).toBe("/jobs?status=failed");
    expect(safeNextPath("//evil.example")).toBe("/");
    expect(safeNextPath("/\\evil.example")).toBe("/");
    expect(safeNextPath("https://evil.example")).toBe("/");
    expect(safeNextPath(undefined)).toBe("/");
  });

  it("says known failures in words and nothing for unknown codes", () => {
    expect(oidcFailureMessage("state")).toMatch(/did not match/);
    expect(oidcFailureMessage("toString")).toBeNull();
    expect(oidcFailureMessage(undefined)).toBeNull();
  });
});
