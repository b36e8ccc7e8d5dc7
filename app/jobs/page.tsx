import type { Metadata } from "next";
import { requireUser } from "@/components/auth/require-user";
import { AppShell } from "@/components/ui/app-shell";
import { JobsClient } from "./jobs-client";

export const metadata: Metadata = { title: "Jobs" };

export default async function JobsPage() {
  const user = await requireUser("/jobs");
  return (
    <AppShell user={user}>
      <JobsClient />
    </AppShell>
  );
}
