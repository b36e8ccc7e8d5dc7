import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { CredentialsClient } from "./credentials-client";

export const metadata: Metadata = { title: "Credentials" };

export default function CredentialsPage() {
  return (
    <SignedInPage path="/credentials" adminsOnly={{ title: "Credentials", notice: "Credentials are managed by administrators." }}>
      {() => <CredentialsClient />}
    </SignedInPage>
  );
}
