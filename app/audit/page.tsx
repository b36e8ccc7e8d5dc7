import type { Metadata } from "next";
import { SignedInPage } from "@/app/signed-in-page";
import { retentionSettings } from "@/server/retention/settings";
import { AuditClient } from "./audit-client";

export const metadata: Metadata = { title: "Audit" };

export default function AuditPage() {
  return (
    <SignedInPage path="/audit" adminsOnly={{ title: "Audit", notice: "The audit trail is read by administrators." }}>
      {() => <AuditClient auditRetentionDays={retentionSettings().auditDays} />}
    </SignedInPage>
  );
}
