"use client";

import { useState } from "react";
import type { Credential } from "@/components/api/types";
import { CredentialForm } from "@/components/credentials/credential-form";
import { CredentialsTable } from "@/components/credentials/credentials-table";
import { useCredentials } from "@/components/hooks/use-credentials";
import { PageHeader } from "@/components/ui/page-header";
import { Panel } from "@/components/ui/panel";
import { ErrorState, LoadingState } from "@/components/ui/states";

export function CredentialsClient() {
  const credentials = useCredentials();
  const [replacing, setReplacing] = useState<Credential | null>(null);

  return (
    <>
      <PageHeader
        title="Credentials"
        description={
          <>
            An ssh login, a vault password or secret variables, for the forms that list them under{" "}
            <code className="font-mono text-[13px]">credentials</code>. Stored encrypted, sent sealed to the job&apos;s runner only, masked
            in the output, never shown again here.
          </>
        }
      />
      <div className="space-y-6">
        {replacing ? (
          // Keyed by name: switching to another credential starts from an empty form.
          <Panel title={`Replace the secret of ${replacing.name}`} key={replacing.name} data-testid="replace-credential">
            <CredentialForm existing={replacing} onDone={() => setReplacing(null)} />
          </Panel>
        ) : (
          <Panel title="Add a credential">
            <CredentialForm />
          </Panel>
        )}
        {credentials.isPending ? (
          <LoadingState label="Loading credentials…" />
        ) : credentials.isError ? (
          <ErrorState error={credentials.error} onRetry={() => void credentials.refetch()} />
        ) : credentials.data.length === 0 ? (
          <div
            className="rounded-lg border border-dashed border-zinc-300 bg-white px-6 py-8 text-sm text-zinc-600"
            data-testid="credentials-empty"
          >
            No credential yet. Add one above, then name it in a form&apos;s <code className="font-mono">credentials:</code> list.
          </div>
        ) : (
          <CredentialsTable credentials={credentials.data} onReplace={setReplacing} />
        )}
      </div>
    </>
  );
}
