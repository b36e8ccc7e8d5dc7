import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { UsersClient } from "./users-client";

export const metadata: Metadata = { title: "Users" };

export default function UsersPage() {
  return (
    <SignedInPage path="/users" adminsOnly={{ title: "Users", notice: "Accounts are managed by administrators." }}>
      {(user) => <UsersClient me={user} />}
    </SignedInPage>
  );
}
