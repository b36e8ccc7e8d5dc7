import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { SchedulesClient } from "./schedules-client";

export const metadata: Metadata = { title: "Schedules" };

export default function SchedulesPage() {
  return <SignedInPage path="/schedules">{(user) => <SchedulesClient isAdmin={user.role === "admin"} />}</SignedInPage>;
}
