"use client";

import { useState, type ReactNode } from "react";
import { Button } from "./button";

type Variant = "primary" | "secondary" | "danger";

/**
 * A button that asks once more before acting, for actions that are hard to take back
 * (revoking a runner, rotating its token). The question is put where the button was, ahead
 * of the confirm button, so a double click lands on the question text and confirms nothing.
 */
export function ConfirmButton({
  children,
  question,
  confirmLabel,
  pendingLabel,
  onConfirm,
  pending = false,
  disabled = false,
  variant = "secondary",
  testId,
}: {
  children: ReactNode;
  question: ReactNode;
  confirmLabel: string;
  pendingLabel?: string;
  onConfirm: () => void;
  pending?: boolean;
  disabled?: boolean;
  variant?: Variant;
  testId?: string;
}) {
  const [confirming, setConfirming] = useState(false);

  if (pending) {
    return (
      <Button size="sm" variant={variant} disabled>
        {pendingLabel ?? children}
      </Button>
    );
  }
  if (confirming) {
    return (
      <span className="inline-flex items-center gap-1.5" role="group" aria-label="Confirm">
        <span className="text-xs text-zinc-600">{question}</span>
        <Button
          size="sm"
          variant={variant === "danger" ? "dangerSolid" : "primary"}
          onClick={() => {
            setConfirming(false);
            onConfirm();
          }}
          data-testid={testId ? `${testId}-confirm` : undefined}
        >
          {confirmLabel}
        </Button>
        <Button size="sm" variant="ghost" onClick={() => setConfirming(false)}>
          Cancel
        </Button>
      </span>
    );
  }
  return (
    <Button size="sm" variant={variant} disabled={disabled} onClick={() => setConfirming(true)} data-testid={testId}>
      {children}
    </Button>
  );
}
