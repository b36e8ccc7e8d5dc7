import type { Metadata } from "next";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState } from "@/components/ui/states";
import { CredentialsClient } from "./credentials-client";

export const metadata: Metadata = { title: "Credentials" };

export default async function CredentialsPage() {
  const user = await requirePageUser("/credentials");
  return (
    <AppShell user={user}>
      {user.role === "admin" ? (
        <CredentialsClient />
      ) : (
        // The API refuses non-admins anyway; this says why instead of showing a failed fetch.
        <div data-testid="admins-only">
          <PageHeader title="Credentials" />
          <EmptyState title="Admins only">Credentials are managed by administrators.</EmptyState>
        </div>
      )}
    </AppShell>
  );
}
