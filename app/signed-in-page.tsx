import type { ReactNode } from "react";
import type { User } from "@/components/api/types";
import { AppShell } from "@/components/ui/app-shell";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState } from "@/components/ui/states";
import { requirePageUser } from "@/server/auth/require-page-user";

/**
 * A page for signed-in users (a server component): the login page first when nobody is
 * signed in, bringing the user back to `path`, then the page in the app's shell. With
 * `adminsOnly`, other users see why there is nothing here instead of a failed fetch (the API
 * refuses them anyway).
 */
export async function SignedInPage({
  path,
  adminsOnly,
  children,
}: {
  path: string;
  adminsOnly?: { title: string; notice: ReactNode };
  children: (user: User) => ReactNode;
}) {
  const user = await requirePageUser(path);
  return (
    <AppShell user={user}>
      {adminsOnly && user.role !== "admin" ? (
        <div data-testid="admins-only">
          <PageHeader title={adminsOnly.title} />
          <EmptyState title="Admins only">{adminsOnly.notice}</EmptyState>
        </div>
      ) : (
        children(user)
      )}
    </AppShell>
  );
}
