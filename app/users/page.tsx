import type { Metadata } from "next";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState } from "@/components/ui/states";
import { UsersClient } from "./users-client";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  const user = await requirePageUser("/users");
  return (
    <AppShell user={user}>
      {user.role === "admin" ? (
        <UsersClient me={user} />
      ) : (
        <div data-testid="admins-only">
          <PageHeader title="Users" />
          <EmptyState title="Admins only">Accounts are managed by administrators.</EmptyState>
        </div>
      )}
    </AppShell>
  );
}
