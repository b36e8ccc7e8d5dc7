/**
 * One sign-on in progress: state, nonce, PKCE verifier, redirect URI and return path, kept in
 * the browser between the redirect to the provider and its answer, in a cookie encrypted and
 * authenticated (AES-256-GCM) with a key derived from the app's ENCRYPTION_SECRET, so any app
 * node opens it and the browser can neither read nor change it. HttpOnly, SameSite=Lax (the
 * provider's redirect back is a cross-site top-level GET), sent to /api/auth/oidc only, 10 minutes.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { credentialKey } from "../security/encryption-secret";

export const OIDC_FLOW_COOKIE = "playform_oidc";
export const OIDC_FLOW_TTL_MS = 10 * 60 * 1000;
const COOKIE_PATH = "/api/auth/oidc";

export interface OidcFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  /** Where to go once signed in: a same-site path. */
  next: string;
  /** Epoch milliseconds after which the flow is refused. */
  expiresAt: number;
}

function flowKey(): Buffer {
  return Buffer.from(hkdfSync("sha256", credentialKey(), Buffer.alloc(0), "playform oidc flow cookie v1", 32));
}

export function sealFlow(flow: OidcFlow): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", flowKey(), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(flow), "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
}

/** The flow in the cookie, or null when it is missing, tampered with or not ours. */
export function openFlow(value: string | null): OidcFlow | null {
  if (!value) return null;
  const raw = Buffer.from(value, "base64url");
  if (raw.length < 29) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", flowKey(), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const flow = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")) as OidcFlow;
    return typeof flow.state === "string" && typeof flow.expiresAt === "number" ? flow : null;
  } catch {
    return null;
  }
}

export function flowCookie(value: string, secure: boolean, maxAgeSeconds = OIDC_FLOW_TTL_MS / 1000) {
  return { name: OIDC_FLOW_COOKIE, value, httpOnly: true, sameSite: "lax" as const, secure, path: COOKIE_PATH, maxAge: maxAgeSeconds };
}
