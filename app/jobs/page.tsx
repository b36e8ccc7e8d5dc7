import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { JobsClient } from "./jobs-client";

export const metadata: Metadata = { title: "Jobs" };

export default function JobsPage() {
  return <SignedInPage path="/jobs">{() => <JobsClient />}</SignedInPage>;
}
