import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { CatalogClient } from "./catalog-client";

export const metadata: Metadata = { title: "Forms" };

export default function CatalogPage() {
  return <SignedInPage path="/">{(user) => <CatalogClient isAdmin={user.role === "admin"} />}</SignedInPage>;
}
