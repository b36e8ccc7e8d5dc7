import { DomainError } from "../errors";
import { errorDetails, recordAudit } from "../audit/record";
import { issueToken, revokeToken, userForToken } from "../data/auth-tokens";
import { findUserByUsername, type PublicUser } from "../data/users";
import { verifyPassword } from "../security/password";
import { isKnownClient, knownClientValue } from "./known-clients";
import { API_TOKEN_TTL_MS, SESSION_TTL_MS } from "./session";
import { RecentEvents, addressKey, sharedCounter } from "./throttle";
import { loggerFor } from "../logging/logger";
import { signOnSettings } from "./oidc-settings";

const log = loggerFor({ component: "auth" });

/**
 * Failed logins are counted per client address and per user name, per app node (throttle.ts):
 *
 * - 20 failures from one address within 10 minutes: that address is refused (any name) until
 *   the window has passed. One client cannot guess at request speed, nor flood the name counter.
 * - 10 failures for one name within 10 minutes, from anywhere: the name is refused, except to
 *   a known-good client of that user: one holding the signed cookie of an earlier login as
 *   that user (known-clients.ts), or at an address that logged in as that user within 30 days.
 *   So strangers can lock `admin` out for strangers, never for admin's own browser or hosts:
 *   the right password from a known-good client always works (its address limit aside, which
 *   only its own failures fill; the cookie is exempt from that one too).
 *
 * A success clears nothing: it would hand a guesser new attempts whenever the real user logs in.
 *
 * The count is atomic per node: an attempt is counted before its password is checked and
 * uncounted if it was right, so 100 wrong passwords at once get at most 10 answers of 401.
 */
const USER_FAILURES = { limit: 10, windowMs: 10 * 60 * 1000 };
const ADDRESS_FAILURES = { limit: 20, windowMs: 10 * 60 * 1000 };
const KNOWN_ADDRESS_MS = 30 * 24 * 60 * 60 * 1000;

const failuresByUser = () => sharedCounter("loginFailuresByUser", () => new RecentEvents(USER_FAILURES.limit, USER_FAILURES.windowMs));
const failuresByAddress = () =>
  sharedCounter("loginFailuresByAddress", () => new RecentEvents(ADDRESS_FAILURES.limit, ADDRESS_FAILURES.windowMs));
const knownAddresses = () => sharedCounter("knownLoginAddresses", () => new RecentEvents(1, KNOWN_ADDRESS_MS, 20_000));

/** Who is logging in: the client's address, and the known-client cookie it sent, if any. */
export interface LoginClient {
  address: string;
  knownClient: string | null;
}

/** The account that may still sign in with a password when PLAYFORM_LOCAL_LOGIN=false. */
export const BREAK_GLASS_ACCOUNT = "admin";

/** With PLAYFORM_LOCAL_LOGIN=false, a password sign-in by anyone but the break-glass account is refused. */
function assertPasswordSignInAllowed(username: string): void {
  const { localLogin, oidc } = signOnSettings();
  if (localLogin || username === BREAK_GLASS_ACCOUNT) return;
  throw new DomainError(
    "forbidden",
    `password sign-in is turned off on this server${oidc ? `: sign in with ${oidc.label}` : ""} (only the break-glass account "${BREAK_GLASS_ACCOUNT}" may use a password)`,
  );
}

/** A name as a counter key: no account has a longer one, and keys must stay small. */
const nameKey = (username: string) => username.slice(0, 64);

/**
 * Checks a username and password from a client; the same error for an unknown user and a
 * wrong password. Returns the user and a fresh known-client cookie value for that client.
 */
export async function checkCredentials(
  username: string,
  password: string,
  client: LoginClient,
  action: "auth.login" | "auth.token" = "auth.login",
): Promise<{ user: PublicUser; knownClient: string }> {
  try {
    return await verifyLogin(username, password, client);
  } catch (error) {
    // The name as typed (capped), never the password.
    const details = { method: "password", username: nameKey(username), ...errorDetails(error) };
    await recordAudit({ actor: null, action, target: `user:${nameKey(username)}`, outcome: "failure", details });
    throw error;
  }
}

async function verifyLogin(username: string, password: string, client: LoginClient): Promise<{ user: PublicUser; knownClient: string }> {
  assertPasswordSignInAllowed(username);
  const now = Date.now();
  const address = addressKey(client.address);
  const name = nameKey(username);
  const account = await findUserByUsername(username);
  const cookieKnown = account !== null && isKnownClient(client.knownClient, account, now);
  const known = cookieKnown || knownAddresses().has(`${name}\n${address}`, now);
  // From here to the password check nothing awaits: each attempt takes its place in the counts
  // (take) before the password is checked, so however many arrive at once, at most the limit
  // are ever checked and answered 401. A right password gives its places back.
  const addressWait = cookieKnown ? 0 : failuresByAddress().take(address, now);
  if (addressWait > 0) {
    throw new DomainError(
      "too_many_requests",
      `too many failed logins from your address: try again in ${addressWait} s`,
      undefined,
      addressWait,
    );
  }
  const nameWait = known ? 0 : failuresByUser().take(name, now);
  if (nameWait > 0) {
    if (!cookieKnown) failuresByAddress().forget(address, now);
    throw new DomainError("too_many_requests", `too many failed logins for "${username}": try again in ${nameWait} s`, undefined, nameWait);
  }
  if (!account || !(await verifyPassword(password, account.passwordHash))) {
    // Known clients skip a check, not the count: their failure is recorded now. It may push an
    // older failure out of a full window, which only keeps the window full.
    if (cookieKnown) failuresByAddress().record(address, now);
    if (known) failuresByUser().record(name, now);
    // The name as typed (capped), the address; never the password.
    log().warn({ user: name, address: client.address }, `failed login for "${name}" from ${client.address}`);
    throw new DomainError("unauthorized", "wrong username or password");
  }
  // A right password gives back only the places this attempt took. A known client took none:
  // recording and then forgetting its attempt in a full window would drop an older failure
  // (record keeps at most `limit`), so every own login would buy the address one more guess.
  if (!cookieKnown) failuresByAddress().forget(address, now);
  if (!known) failuresByUser().forget(name, now);
  knownAddresses().record(`${name}\n${address}`, now);
  return { user: { id: account.id, username: account.username, role: account.role }, knownClient: knownClientValue(account, now) };
}

/** Logs a user in: the user, a new session token valid for SESSION_TTL_MS (the cookie's lifetime), a known-client cookie value. */
export async function logIn(
  username: string,
  password: string,
  client: LoginClient,
): Promise<{ user: PublicUser; token: string; knownClient: string }> {
  const { user, knownClient } = await checkCredentials(username, password, client);
  const { token } = await issueToken(user.id, "session", SESSION_TTL_MS);
  await recordAudit({
    actor: user.username,
    action: "auth.login",
    target: `user:${user.username}`,
    outcome: "success",
    details: { method: "password" },
  });
  return { user, token, knownClient };
}

/** Ends this session or token, if there is one, and the tokens it made. */
export async function logOut(sessionToken: string | null): Promise<void> {
  if (!sessionToken) return;
  const user = await userForToken(sessionToken);
  await revokeToken(sessionToken);
  if (user) await recordAudit({ actor: user.username, action: "auth.logout", target: `user:${user.username}`, outcome: "success" });
}

/** A bearer token for scripts and CI pipelines, valid for API_TOKEN_TTL_MS, for a username and password. */
export async function issueApiToken(
  username: string,
  password: string,
  client: LoginClient,
): Promise<{ token: string; expiresAt: Date; knownClient: string }> {
  const { user, knownClient } = await checkCredentials(username, password, client, "auth.token");
  const issued = await issueToken(user.id, "api", API_TOKEN_TTL_MS);
  const details = { kind: "api", expiresAt: issued.expiresAt.toISOString() };
  await recordAudit({ actor: user.username, action: "auth.token", target: `user:${user.username}`, outcome: "success", details });
  return { ...issued, knownClient };
}

/** `Authorization: Basic base64(user:password)` → credentials, or a 401 that says what is missing. */
export function basicCredentials(request: Request): { username: string; password: string } {
  const header = request.headers.get("authorization");
  if (!header?.toLowerCase().startsWith("basic ")) {
    throw new DomainError("unauthorized", "send HTTP Basic credentials (Authorization: Basic ...)");
  }
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(header.slice(6).trim(), "base64"));
  } catch {
    throw new DomainError("unauthorized", "malformed Basic credentials: not valid UTF-8");
  }
  const colon = decoded.indexOf(":");
  if (colon < 0 || decoded.includes("\u0000")) throw new DomainError("unauthorized", "malformed Basic credentials");
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
