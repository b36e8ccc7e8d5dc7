import { redirect } from "next/navigation";
import { getCurrentUser } from "@/server/auth/current-user";
import type { User } from "@/components/api/types";

/**
 * For server page components: the signed-in user, or a redirect to the login page that
 * brings the user back to `returnTo` afterwards.
 */
export async function requireUser(returnTo: string): Promise<User> {
  const user = await getCurrentUser();
  if (!user) redirect(`/login?next=${encodeURIComponent(returnTo)}`);
  return user;
}
