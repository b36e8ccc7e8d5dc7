import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { GroupsClient } from "./groups-client";

export const metadata: Metadata = { title: "Groups" };

export default function GroupsPage() {
  return (
    <SignedInPage path="/groups" adminsOnly={{ title: "Groups", notice: "Groups are managed by administrators." }}>
      {() => <GroupsClient />}
    </SignedInPage>
  );
}
