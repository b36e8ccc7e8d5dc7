import { redirect } from "next/navigation";
import type { PublicUser } from "../data/users";
import { getCurrentUser } from "./current-user";

/**
 * For server page components: the signed-in user, or a redirect to the login page that
 * brings the user back to `returnTo` afterwards.
 */
export async function requirePageUser(returnTo: string): Promise<PublicUser> {
  const user = await getCurrentUser();
  if (!user) redirect(`/login?next=${encodeURIComponent(returnTo)}`);
  return user;
}
