"use client";

import { errorMessage } from "@/components/api/client";
import type { Credential, CredentialKind } from "@/components/api/types";
import { useCredentialChange } from "@/components/hooks/use-credentials";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { formatDateTime } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";

const KIND_LABELS: Record<CredentialKind, string> = { ssh: "ssh login", vault: "vault password", secret: "secret variables" };

/** Stored credentials: what they are and who uses them, never their secrets. */
export function CredentialsTable({ credentials, onReplace }: { credentials: Credential[]; onReplace: (credential: Credential) => void }) {
  return (
    <Panel title={`Credentials (${credentials.length})`} bodyClassName="p-0">
      <table className="w-full text-sm" data-testid="credentials-table">
        <thead className="bg-zinc-50 text-left text-xs font-semibold tracking-wide text-zinc-500 uppercase">
          <tr>
            <th className="px-4 py-2">Name</th>
            <th className="px-4 py-2">Kind</th>
            <th className="px-4 py-2">Used by</th>
            <th className="px-4 py-2">Updated</th>
            <th className="px-4 py-2" />
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {credentials.map((credential) => (
            <CredentialRow key={credential.name} credential={credential} onReplace={() => onReplace(credential)} />
          ))}
        </tbody>
      </table>
    </Panel>
  );
}

function CredentialRow({ credential, onReplace }: { credential: Credential; onReplace: () => void }) {
  const change = useCredentialChange();
  const inUse = credential.usedBy.length > 0;
  return (
    <tr className="align-top" data-testid={`credential-row-${credential.name}`} data-kind={credential.kind}>
      <td className="px-4 py-2">
        <span className="font-mono text-[13px] font-semibold text-zinc-900">{credential.name}</span>
        {credential.description && <div className="mt-0.5 max-w-md text-xs text-zinc-500">{credential.description}</div>}
      </td>
      <td className="px-4 py-2">
        <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-700">{KIND_LABELS[credential.kind]}</span>
      </td>
      <td className="px-4 py-2 text-xs text-zinc-600">
        {inUse ? (
          credential.usedBy.map((form) => (
            <div key={form} className="font-mono">
              {form}
            </div>
          ))
        ) : (
          <span className="text-zinc-400">no form</span>
        )}
      </td>
      <td className="px-4 py-2 text-zinc-600" title={`created ${formatDateTime(credential.createdAt)}`}>
        {formatDateTime(credential.updatedAt)}
      </td>
      <td className="px-4 py-2">
        <div className="flex flex-wrap items-center justify-end gap-1.5">
          {change.isError && (
            <span role="alert" className="max-w-64 text-xs text-red-700">
              {errorMessage(change.error)}
            </span>
          )}
          <Button size="sm" onClick={onReplace} data-testid={`credential-replace-${credential.name}`}>
            Replace secret
          </Button>
          {inUse ? (
            // The server refuses it too (409); saying why here saves the round trip.
            <span className="text-xs text-zinc-500" title="Remove it from the forms' credentials: first">
              in use
            </span>
          ) : (
            <ConfirmButton
              variant="danger"
              question={`Delete ${credential.name}? Its secret is gone for good.`}
              confirmLabel="Delete"
              pendingLabel="Deleting…"
              onConfirm={() => change.mutate({ action: "delete", name: credential.name })}
              pending={change.isPending}
              testId={`credential-delete-${credential.name}`}
            >
              Delete
            </ConfirmButton>
          )}
        </div>
      </td>
    </tr>
  );
}
