import type { Metadata } from "next";
import { requireUser } from "@/components/auth/require-user";
import { AppShell } from "@/components/ui/app-shell";
import { AccountClient } from "./account-client";

export const metadata: Metadata = { title: "Your account" };

export default async function AccountPage() {
  const user = await requireUser("/account");
  return (
    <AppShell user={user}>
      <AccountClient user={user} />
    </AppShell>
  );
}
