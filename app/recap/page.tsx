import type { Metadata } from "next";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { RecapClient } from "./recap-client";

export const metadata: Metadata = { title: "Analyse a log" };

export default async function RecapPage() {
  const user = await requirePageUser("/recap");
  return (
    <AppShell user={user}>
      <RecapClient />
    </AppShell>
  );
}
