import { cookies } from "next/headers";
import { userForToken } from "../data/auth-tokens";
import type { PublicUser } from "../data/users";
import { SESSION_COOKIE } from "./session";

/** For server components: the logged-in user of this request, or null. */
export async function getCurrentUser(): Promise<PublicUser | null> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  return token ? userForToken(token) : null;
}
