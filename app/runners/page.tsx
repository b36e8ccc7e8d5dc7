import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { RunnersClient } from "./runners-client";

export const metadata: Metadata = { title: "Runners" };

export default function RunnersPage() {
  return (
    <SignedInPage
      path="/runners"
      adminsOnly={{ title: "Runners", notice: "Runners are managed by administrators. Ask one if a runner needs approving or looks down." }}
    >
      {() => <RunnersClient />}
    </SignedInPage>
  );
}
