/**
 * Known-good clients: a browser that logged in as a user gets a signed cookie saying so
 * (`playform_known`, httpOnly, sent to /api/auth only, 30 days). A stranger's failed logins
 * lock the user name for other strangers, never for a client holding this cookie (see
 * login.ts), so nobody can lock `admin` out of their own browser by guessing.
 *
 * The cookie is `base64url(username).expiry.HMAC`, the HMAC keyed with a key derived (HKDF)
 * from the app's ENCRYPTION_SECRET, the same on every node, and computed over the user's
 * current password hash too: a password change (a reset after a compromise) ends every
 * cookie issued before it. It grants nothing by itself: the password is still required.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { credentialKey } from "../security/encryption-secret";
import { KNOWN_CLIENT_TTL_MS } from "./session";

interface Account {
  username: string;
  passwordHash: string;
}

function signingKey(): Buffer {
  return Buffer.from(hkdfSync("sha256", credentialKey(), Buffer.alloc(0), "playform known-client cookie v1", 32));
}

function tag(payload: string, account: Account): string {
  return createHmac("sha256", signingKey()).update(`${payload}\n${account.passwordHash}`).digest("base64url");
}

/** A new cookie value for a client that just logged in as the account. */
export function knownClientValue(account: Account, now = Date.now()): string {
  const payload = `${Buffer.from(account.username).toString("base64url")}.${Math.floor((now + KNOWN_CLIENT_TTL_MS) / 1000)}`;
  return `${payload}.${tag(payload, account)}`;
}

/** Whether the cookie value proves an earlier login as this account (with its current password). */
export function isKnownClient(value: string | null, account: Account, now = Date.now()): boolean {
  if (!value) return false;
  const [user, expiry, given, ...rest] = value.split(".");
  if (!user || !expiry || !given || rest.length > 0) return false;
  if (Buffer.from(user, "base64url").toString("utf8") !== account.username) return false;
  if (!/^\d{1,12}$/.test(expiry) || Number(expiry) * 1000 <= now) return false;
  const expected = Buffer.from(tag(`${user}.${expiry}`, account));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
