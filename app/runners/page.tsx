import type { Metadata } from "next";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState } from "@/components/ui/states";
import { RunnersClient } from "./runners-client";

export const metadata: Metadata = { title: "Runners" };

export default async function RunnersPage() {
  const user = await requirePageUser("/runners");
  return (
    <AppShell user={user}>
      {user.role === "admin" ? (
        <RunnersClient />
      ) : (
        // The API refuses non-admins anyway; this says why instead of showing a failed fetch.
        <div data-testid="admins-only">
          <PageHeader title="Runners" />
          <EmptyState title="Admins only">
            Runners are managed by administrators. Ask one if a runner needs approving or looks down.
          </EmptyState>
        </div>
      )}
    </AppShell>
  );
}
