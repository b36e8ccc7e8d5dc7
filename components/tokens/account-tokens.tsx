"use client";

import { useTokens } from "@/components/hooks/use-tokens";
import { Panel } from "@/components/ui/panel";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { NewTokenForm } from "./new-token-form";
import { TokensTable } from "./tokens-table";

/** The account page's "API tokens" section: your tokens, a form to make one, revoke buttons. */
export function AccountTokens() {
  const tokens = useTokens("mine");
  return (
    <section className="space-y-3" data-testid="api-tokens">
      <Panel title="API tokens">
        <p className="mb-3 text-sm text-zinc-600">
          Personal tokens let scripts call the API as you, with your role, within their scope (read only; read and launch jobs; everything
          you may), until they expire or you revoke them. Sign-in tokens that scripts got for your password are listed too. Changing your
          password, or an admin resetting it or changing your role, ends them all.
        </p>
        <NewTokenForm />
      </Panel>
      {tokens.isPending ? (
        <LoadingState label="Loading tokens…" />
      ) : tokens.isError ? (
        <ErrorState error={tokens.error} onRetry={() => void tokens.refetch()} />
      ) : (
        <TokensTable tokens={tokens.data} title={`Your tokens (${tokens.data.length})`} testId="tokens-table" />
      )}
    </section>
  );
}
