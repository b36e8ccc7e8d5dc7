import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { SourcesClient } from "./sources-client";

export const metadata: Metadata = { title: "Sources" };

export default function SourcesPage() {
  return (
    <SignedInPage path="/sources" adminsOnly={{ title: "Sources", notice: "Git sources of forms are managed by administrators." }}>
      {() => <SourcesClient />}
    </SignedInPage>
  );
}
