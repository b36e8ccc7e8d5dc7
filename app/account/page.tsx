import type { Metadata } from "next";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { AccountClient } from "./account-client";

export const metadata: Metadata = { title: "Your account" };

export default async function AccountPage() {
  const user = await requirePageUser("/account");
  return (
    <AppShell user={user}>
      <AccountClient user={user} />
    </AppShell>
  );
}
