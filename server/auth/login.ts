import { AppError } from "../api/errors";
import { findUserByUsername, type PublicUser } from "../data/users";
import { verifyPassword } from "../security/password";

/** Checks a username and password; the same error for an unknown user and a wrong password. */
export async function checkCredentials(username: string, password: string): Promise<PublicUser> {
  const user = await findUserByUsername(username);
  if (!user || !(await verifyPassword(password, user.passwordHash))) {
    throw new AppError("unauthorized", "wrong username or password");
  }
  return { id: user.id, username: user.username, role: user.role };
}

/** `Authorization: Basic base64(user:password)` → credentials, or a 401 that says what is missing. */
export function basicCredentials(request: Request): { username: string; password: string } {
  const header = request.headers.get("authorization");
  if (!header?.toLowerCase().startsWith("basic ")) {
    throw new AppError("unauthorized", "send HTTP Basic credentials (Authorization: Basic ...)");
  }
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new AppError("unauthorized", "malformed Basic credentials");
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
