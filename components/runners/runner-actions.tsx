"use client";

import { errorMessage } from "@/components/api/client";
import type { Runner, RunnerAction } from "@/components/api/types";
import { useRunnerAction } from "@/components/hooks/use-runner-action";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";

/**
 * What an admin can do with a runner in its current state: decide on a join request, or
 * make an approved runner the default, rotate its token, revoke it. A 409 (the state changed
 * meanwhile) shows the server's reason beside the buttons.
 */
export function RunnerActions({ runner, onRotated }: { runner: Runner; onRotated: (token: string) => void }) {
  const action = useRunnerAction(runner.id);
  const busy = (which: RunnerAction) => action.isPending && action.variables === which;
  const run = (which: RunnerAction) =>
    action.mutate(which, {
      onSuccess: (result) => {
        if (which === "rotate" && result.token) onRotated(result.token);
      },
    });

  const error = action.isError && (
    <span role="alert" className="max-w-64 text-xs text-red-700" data-testid="runner-action-error">
      {errorMessage(action.error)}
    </span>
  );

  if (runner.status === "pending") {
    return (
      <div className="flex flex-wrap items-center justify-end gap-2">
        {error}
        <ConfirmButton
          variant="primary"
          question={`Let “${runner.name}” run jobs?`}
          confirmLabel="Yes, approve"
          pendingLabel="Approving…"
          pending={busy("approve")}
          disabled={action.isPending}
          onConfirm={() => run("approve")}
          testId="runner-approve"
        >
          Approve
        </ConfirmButton>
        <ConfirmButton
          variant="danger"
          question="Refuse this runner?"
          confirmLabel="Yes, reject"
          pendingLabel="Rejecting…"
          pending={busy("reject")}
          disabled={action.isPending}
          onConfirm={() => run("reject")}
          testId="runner-reject"
        >
          Reject
        </ConfirmButton>
      </div>
    );
  }

  if (runner.status !== "approved") return error || null;

  return (
    <div className="flex flex-wrap items-center justify-end gap-2">
      {error}
      {!runner.isDefault && (
        <Button size="sm" onClick={() => run("default")} disabled={action.isPending} data-testid="runner-make-default">
          {busy("default") ? "Saving…" : "Make default"}
        </Button>
      )}
      <ConfirmButton
        question="The current token stops working at once."
        confirmLabel="Yes, rotate"
        pendingLabel="Rotating…"
        pending={busy("rotate")}
        disabled={action.isPending}
        onConfirm={() => run("rotate")}
        testId="runner-rotate"
      >
        Rotate token
      </ConfirmButton>
      <ConfirmButton
        variant="danger"
        question={`Disconnect “${runner.name}” for good?`}
        confirmLabel="Yes, revoke"
        pendingLabel="Revoking…"
        pending={busy("revoke")}
        disabled={action.isPending}
        onConfirm={() => run("revoke")}
        testId="runner-revoke"
      >
        Revoke
      </ConfirmButton>
    </div>
  );
}
