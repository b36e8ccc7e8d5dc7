"use client";

import { errorMessage } from "@/components/api/client";
import type { Credential, CredentialKind } from "@/components/api/types";
import { useCredentialChange } from "@/components/hooks/use-credentials";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { DataTable, type Column } from "@/components/ui/data-table";
import { formatDateTime } from "@/components/ui/format";

const KIND_LABELS: Record<CredentialKind, string> = { ssh: "ssh login", vault: "vault password", secret: "secret variables" };

const COLUMNS: Column<Credential>[] = [
  {
    key: "name",
    header: "Name",
    cell: (credential) => (
      <>
        <span className="font-mono text-[13px] font-semibold text-zinc-900">{credential.name}</span>
        {credential.description && <div className="mt-0.5 max-w-md text-xs text-zinc-500">{credential.description}</div>}
      </>
    ),
  },
  {
    key: "kind",
    header: "Kind",
    cell: (credential) => <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-700">{KIND_LABELS[credential.kind]}</span>,
  },
  {
    key: "usedBy",
    header: "Used by",
    className: "text-xs text-zinc-600",
    cell: (credential) =>
      credential.usedBy.length > 0 ? (
        credential.usedBy.map((form) => (
          <div key={form} className="font-mono">
            {form}
          </div>
        ))
      ) : (
        <span className="text-zinc-400">no form</span>
      ),
  },
  {
    key: "updated",
    header: "Updated",
    className: "text-zinc-600",
    cellProps: (credential) => ({ title: `created ${formatDateTime(credential.createdAt)}` }),
    cell: (credential) => formatDateTime(credential.updatedAt),
  },
];

/** Stored credentials: what they are and who uses them, never their secrets. */
export function CredentialsTable({ credentials, onReplace }: { credentials: Credential[]; onReplace: (credential: Credential) => void }) {
  const columns: Column<Credential>[] = [
    ...COLUMNS,
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      cell: (credential) => <CredentialActions credential={credential} onReplace={() => onReplace(credential)} />,
    },
  ];
  return (
    <DataTable
      title={`Credentials (${credentials.length})`}
      testId="credentials-table"
      rows={credentials}
      columns={columns}
      row={(credential) => ({
        key: credential.name,
        className: "align-top",
        "data-testid": `credential-row-${credential.name}`,
        "data-kind": credential.kind,
      })}
    />
  );
}

function CredentialActions({ credential, onReplace }: { credential: Credential; onReplace: () => void }) {
  const change = useCredentialChange();
  return (
    <div className="flex flex-wrap items-center justify-end gap-1.5">
      {change.isError && (
        <span role="alert" className="max-w-64 text-xs text-red-700">
          {errorMessage(change.error)}
        </span>
      )}
      <Button size="sm" onClick={onReplace} data-testid={`credential-replace-${credential.name}`}>
        Replace secret
      </Button>
      {credential.usedBy.length > 0 ? (
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
  );
}
