import type { Metadata } from "next";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { CatalogClient } from "./catalog-client";

export const metadata: Metadata = { title: "Forms" };

export default async function CatalogPage() {
  const user = await requirePageUser("/");
  return (
    <AppShell user={user}>
      <CatalogClient isAdmin={user.role === "admin"} />
    </AppShell>
  );
}
