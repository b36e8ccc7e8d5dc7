"use client";

import { errorMessage } from "@/components/api/client";
import type { Runner } from "@/components/api/types";
import { useRunnerAction, type RunnerPageAction } from "@/components/hooks/use-runner-action";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";

interface ActionSpec {
  action: RunnerPageAction;
  label: string;
  pendingLabel: string;
  /** For runners in this state. */
  offered: (runner: Runner) => boolean;
  /** Asked once more before acting; an action without one (easy to take back) acts at once. */
  confirm?: { question: (runner: Runner) => string; label: string };
  variant?: "primary" | "secondary" | "danger";
  testId: string;
}

const pending = (runner: Runner) => runner.status === "pending";
const approved = (runner: Runner) => runner.status === "approved";
const inbound = (runner: Runner) => runner.mode === "inbound" && (runner.status === "approved" || runner.status === "pending");
const plainHttp = (runner: Runner) => runner.address?.startsWith("http:") ?? false;

/** Every action, in the order the buttons stand. */
const ACTIONS: ActionSpec[] = [
  {
    action: "approve",
    label: "Approve",
    pendingLabel: "Approving…",
    offered: pending,
    confirm: { question: (runner) => `Let “${runner.name}” run jobs?`, label: "Yes, approve" },
    variant: "primary",
    testId: "runner-approve",
  },
  {
    action: "reject",
    label: "Reject",
    pendingLabel: "Rejecting…",
    offered: pending,
    confirm: { question: () => "Refuse this runner?", label: "Yes, reject" },
    variant: "danger",
    testId: "runner-reject",
  },
  {
    action: "default",
    label: "Make default",
    pendingLabel: "Saving…",
    offered: (runner) => approved(runner) && !runner.isDefault,
    testId: "runner-make-default",
  },
  {
    action: "repin",
    label: "Re-pin certificate",
    pendingLabel: "Re-pinning…",
    // Only when the certificate it presents is not the pinned one: comparing is the admin's job.
    offered: (runner) =>
      approved(runner) && inbound(runner) && !!runner.presentedFingerprint && runner.presentedFingerprint !== runner.certFingerprint,
    confirm: {
      question: (runner) =>
        `Trust the certificate with SHA-256 ${runner.presentedFingerprint} from now on? Compare it with the runner's log first.`,
      label: "Yes, re-pin",
    },
    testId: "runner-repin",
  },
  {
    action: "no-tls",
    label: "Allow without TLS",
    pendingLabel: "Saving…",
    offered: (runner) => inbound(runner) && plainHttp(runner) && !runner.inboundNoTls,
    confirm: {
      question: () => "Connect to this runner over plain http: its traffic, token included, is readable on the network.",
      label: "Yes, no TLS",
    },
    variant: "danger",
    testId: "runner-no-tls",
  },
  {
    action: "require-tls",
    label: "Require TLS",
    pendingLabel: "Saving…",
    offered: (runner) => inbound(runner) && runner.inboundNoTls,
    testId: "runner-require-tls",
  },
  {
    action: "rotate",
    label: "Rotate token",
    pendingLabel: "Rotating…",
    offered: approved,
    confirm: { question: () => "The current token stops working at once.", label: "Yes, rotate" },
    testId: "runner-rotate",
  },
  {
    action: "revoke",
    label: "Revoke",
    pendingLabel: "Revoking…",
    offered: approved,
    confirm: { question: (runner) => `Disconnect “${runner.name}” for good?`, label: "Yes, revoke" },
    variant: "danger",
    testId: "runner-revoke",
  },
  {
    action: "delete",
    label: "Delete",
    pendingLabel: "Deleting…",
    // A rejected runner only lingers in the list; deleting it frees its name to ask again.
    offered: (runner) => runner.status === "rejected",
    confirm: { question: (runner) => `Remove “${runner.name}” from the list? Its name may then ask to join again.`, label: "Yes, delete" },
    variant: "danger",
    testId: "runner-delete",
  },
];

/**
 * What an admin can do with a runner in its current state: decide on a join request, or
 * make an approved runner the default, rotate its token, revoke it. A 409 (the state changed
 * meanwhile) shows the server's reason beside the buttons.
 */
export function RunnerActions({ runner, onRotated }: { runner: Runner; onRotated: (token: string) => void }) {
  const action = useRunnerAction(runner.id);
  const run = (which: RunnerPageAction) =>
    action.mutate(which, {
      onSuccess: (result) => {
        if (which === "rotate" && result?.token) onRotated(result.token);
      },
    });

  const error = action.isError && (
    <span role="alert" className="max-w-64 text-xs text-red-700" data-testid="runner-action-error">
      {errorMessage(action.error)}
    </span>
  );
  const offered = ACTIONS.filter((spec) => spec.offered(runner));
  if (offered.length === 0) return error || null;

  return (
    <div className="flex flex-wrap items-center justify-end gap-2">
      {error}
      {offered.map((spec) => {
        const busy = action.isPending && action.variables === spec.action;
        return spec.confirm ? (
          <ConfirmButton
            key={spec.action}
            variant={spec.variant}
            question={spec.confirm.question(runner)}
            confirmLabel={spec.confirm.label}
            pendingLabel={spec.pendingLabel}
            pending={busy}
            disabled={action.isPending}
            onConfirm={() => run(spec.action)}
            testId={spec.testId}
          >
            {spec.label}
          </ConfirmButton>
        ) : (
          <Button
            key={spec.action}
            size="sm"
            variant={spec.variant}
            onClick={() => run(spec.action)}
            disabled={action.isPending}
            data-testid={spec.testId}
          >
            {busy ? spec.pendingLabel : spec.label}
          </Button>
        );
      })}
    </div>
  );
}
