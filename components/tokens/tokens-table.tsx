"use client";

import { errorMessage } from "@/components/api/client";
import type { PersonalToken } from "@/components/api/types";
import { useRevokeToken } from "@/components/hooks/use-tokens";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { DataTable, type Column } from "@/components/ui/data-table";
import { formatDateTime } from "@/components/ui/format";

/** How a token is named in rows and test ids: its name, or for a sign-in token (no name) "sign-in token" and its id's start. */
const label = (t: PersonalToken) => (t.kind === "sign-in" ? `sign-in ${t.id.slice(0, 8)}` : t.name);

/** Personal and sign-in tokens with their scope, dates and a revoke button; `showOwner` adds the owner's column (admins). */
export function TokensTable({
  tokens,
  title,
  showOwner = false,
  testId,
}: {
  tokens: PersonalToken[];
  title: string;
  showOwner?: boolean;
  testId: string;
}) {
  const revoke = useRevokeToken();
  const columns: Column<PersonalToken>[] = [
    ...(showOwner ? [{ key: "user", header: "User", className: "text-zinc-900", cell: (t: PersonalToken) => t.user }] : []),
    {
      key: "name",
      header: "Name",
      className: "font-medium text-zinc-900",
      cell: (t) =>
        t.kind === "sign-in" ? (
          <span title="Traded for your password at POST /api/auth/token">
            Sign-in token <span className="font-mono text-xs text-zinc-500">{t.id.slice(0, 8)}</span>
          </span>
        ) : (
          <>
            {t.name}
            {t.parentId && (
              <span className="ml-1 text-xs font-normal text-zinc-500" title="Made with another token: revoked with it">
                (made by a token)
              </span>
            )}
          </>
        ),
    },
    {
      key: "scope",
      header: "Scope",
      className: "text-zinc-600",
      cell: (t) => t.scope ?? "admin",
      cellProps: () => ({ "data-testid": "token-scope" }),
    },
    { key: "created", header: "Created", className: "text-zinc-600", cell: (t) => formatDateTime(t.createdAt) },
    { key: "expires", header: "Expires", className: "text-zinc-600", cell: (t) => formatDateTime(t.expiresAt) },
    {
      key: "used",
      header: "Last used",
      className: "text-zinc-600",
      cell: (t) => (t.lastUsedAt ? formatDateTime(t.lastUsedAt) : "never"),
      cellProps: () => ({ "data-testid": "token-last-used" }),
    },
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      align: "right",
      cell: (t) => (
        <ConfirmButton
          variant="danger"
          question={`Revoke "${label(t)}"? Scripts using it, and tokens made with it, stop working.`}
          confirmLabel="Revoke"
          onConfirm={() => revoke.mutate(t.id)}
          pending={revoke.isPending && revoke.variables === t.id}
          pendingLabel="Revoking…"
          testId={`revoke-token-${label(t)}`}
        >
          Revoke
        </ConfirmButton>
      ),
    },
  ];
  return (
    <>
      {revoke.isError && (
        <p className="mb-2 text-sm text-red-700" role="alert">
          {errorMessage(revoke.error)}
        </p>
      )}
      {tokens.length === 0 ? (
        <p className="rounded-lg border border-zinc-200 bg-white p-4 text-sm text-zinc-600" data-testid={`${testId}-empty`}>
          No API tokens.
        </p>
      ) : (
        <DataTable
          title={title}
          testId={testId}
          rows={tokens}
          columns={columns}
          row={(t) => ({ key: t.id, "data-testid": `token-row-${label(t)}`, "data-user": t.user, "data-kind": t.kind })}
        />
      )}
    </>
  );
}
