import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { RecapClient } from "./recap-client";

export const metadata: Metadata = { title: "Analyse a log" };

export default function RecapPage() {
  return <SignedInPage path="/recap">{() => <RecapClient />}</SignedInPage>;
}
