import type { Metadata } from "next";
import { requireUser } from "@/components/auth/require-user";
import { AppShell } from "@/components/ui/app-shell";
import { CatalogClient } from "./catalog-client";

export const metadata: Metadata = { title: "Forms" };

export default async function CatalogPage() {
  const user = await requireUser("/");
  return (
    <AppShell user={user}>
      <CatalogClient isAdmin={user.role === "admin"} />
    </AppShell>
  );
}
