import type { Metadata } from "next";
import { requireUser } from "@/components/auth/require-user";
import { AppShell } from "@/components/ui/app-shell";
import { RecapClient } from "./recap-client";

export const metadata: Metadata = { title: "Analyse a log" };

export default async function RecapPage() {
  const user = await requireUser("/recap");
  return (
    <AppShell user={user}>
      <RecapClient />
    </AppShell>
  );
}
