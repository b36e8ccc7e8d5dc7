import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { AccountClient } from "./account-client";

export const metadata: Metadata = { title: "Your account" };

export default function AccountPage() {
  return <SignedInPage path="/account">{(user) => <AccountClient user={user} />}</SignedInPage>;
}
