"use client";

import { useState } from "react";
import { useTokens } from "@/components/hooks/use-tokens";
import { Field } from "@/components/ui/field";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { TokensTable } from "./tokens-table";

/** Admins: every user's personal tokens, narrowed to one user if wanted, each revocable. */
export function AllTokens({ usernames }: { usernames: string[] }) {
  const tokens = useTokens("all");
  const [user, setUser] = useState("");
  if (tokens.isPending) return <LoadingState label="Loading API tokens…" />;
  if (tokens.isError) return <ErrorState error={tokens.error} onRetry={() => void tokens.refetch()} />;
  const shown = user ? tokens.data.filter((t) => t.user === user) : tokens.data;
  return (
    <section className="space-y-2" data-testid="all-tokens">
      <Field label="API tokens of" className="max-w-xs">
        {(control) => (
          <select {...control} value={user} onChange={(e) => setUser(e.target.value)} data-testid="tokens-user-filter">
            <option value="">every user</option>
            {usernames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <TokensTable tokens={shown} title={`API tokens (${shown.length})`} showOwner testId="admin-tokens-table" />
    </section>
  );
}
