import type { Metadata } from "next";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { JobsClient } from "./jobs-client";

export const metadata: Metadata = { title: "Jobs" };

export default async function JobsPage() {
  const user = await requirePageUser("/jobs");
  return (
    <AppShell user={user}>
      <JobsClient />
    </AppShell>
  );
}
