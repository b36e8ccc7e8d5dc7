import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { HostsClient } from "./hosts-client";

export const metadata: Metadata = { title: "Hosts" };

/** `/hosts?q=`: every host of the runs the reader may see (GET /api/hosts). */
export default function HostsPage() {
  return <SignedInPage path="/hosts">{() => <HostsClient />}</SignedInPage>;
}
