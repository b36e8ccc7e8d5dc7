"use client";

import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";

/**
 * A freshly rotated runner token. The server keeps only its hash, so this is the one chance
 * to copy it; the box stays until the admin says it is stored.
 */
export function RotatedToken({ runner, token, onDismiss }: { runner: string; token: string; onDismiss: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"yes" | "select" | null>(null);

  const copy = async () => {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(token);
      setCopied("yes");
    } catch {
      // No clipboard API (plain http on another host) or permission denied: the text is
      // selected, so Ctrl+C still works.
      setCopied("select");
    }
  };

  return (
    <div role="alert" className="rounded-lg border border-amber-300 bg-amber-50 p-4 shadow-xs" data-testid="rotated-token">
      <h2 className="text-sm font-semibold text-amber-950">
        New token for runner <span className="font-mono">{runner}</span>
      </h2>
      <p className="mt-1 text-sm text-amber-900">
        Copy it now: <strong>it will not be shown again.</strong> The old token stopped working, so the runner is disconnected until it uses
        this one.
      </p>
      <div className="mt-3 flex gap-2">
        <input
          ref={field}
          readOnly
          value={token}
          aria-label="New runner token"
          onFocus={(e) => e.currentTarget.select()}
          className="block w-full min-w-0 rounded-md border border-amber-300 bg-white px-3 py-1.5 font-mono text-xs text-zinc-900"
          data-testid="rotated-token-value"
        />
        <Button variant="primary" onClick={() => void copy()}>
          {copied === "yes" ? "Copied" : "Copy"}
        </Button>
      </div>
      {copied === "select" && (
        <p className="mt-1 text-xs text-amber-900">Copying is not allowed here: the token is selected, press Ctrl+C.</p>
      )}
      <div className="mt-3 space-y-1.5 text-xs text-amber-900">
        <p>
          <strong>On Kubernetes</strong>, updating the Secret is not enough: running pods keep the old value until they restart, so roll
          them out afterwards (names as in <code className="font-mono">deploy/kubernetes/rte.yaml</code>):
        </p>
        <pre className="overflow-x-auto rounded-md bg-zinc-900 px-3 py-2 font-mono text-[11px] leading-5 text-zinc-100">
          {[
            `kubectl create secret generic playform-rte-${runner} --from-literal=token='<new token>' \\`,
            "  --dry-run=client -o yaml | kubectl apply -f -",
            `kubectl rollout restart statefulset/playform-rte-${runner}`,
          ].join("\n")}
        </pre>
        <p>
          Elsewhere: set <code className="font-mono">RTE_TOKEN</code> to the new token and restart the runner.
        </p>
      </div>
      <div className="mt-3">
        <Button size="sm" onClick={onDismiss}>
          I have stored it
        </Button>
      </div>
    </div>
  );
}
