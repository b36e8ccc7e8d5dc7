"use client";

import { useSyncExternalStore } from "react";

const PLACEHOLDER_URL = "https://playform.example.com";
const noSubscription = () => () => undefined;

/**
 * How a new runner joins, with this app's own address filled in: started without RTE_TOKEN,
 * an RTE asks to join under RTE_RUNNER_NAME and waits here, pending, for an admin.
 */
export function JoinHelp() {
  // Read after hydration: the server does not know which address the browser used.
  const appUrl = useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => PLACEHOLDER_URL,
  );
  return (
    <div className="text-sm text-zinc-600" data-testid="join-help">
      <p>
        To add a runner, start an RTE on the machine that should run the playbooks, with the app&apos;s address, a name for the runner and{" "}
        <em>no</em> <code className="font-mono text-xs">RTE_TOKEN</code>:
      </p>
      <pre className="mt-2 overflow-x-auto rounded-md bg-zinc-900 px-3 py-2 font-mono text-xs text-zinc-100">
        APP_URL={appUrl} RTE_RUNNER_NAME=datacenter-2 npm run rte
      </pre>
      <p className="mt-2">
        It asks to join and shows up here as a request. Approve it and it receives its token once (kept in{" "}
        <code className="font-mono text-xs">RTE_STATE_PATH</code>) and starts taking jobs.
      </p>
      <p className="mt-3">
        Where the runner cannot reach the app but the app can reach it, start it <em>inbound</em>: it listens, and the app connects to the
        address it gives.
      </p>
      <pre className="mt-2 overflow-x-auto rounded-md bg-zinc-900 px-3 py-2 font-mono text-xs text-zinc-100">
        RTE_MODE=inbound PORT=8000 RTE_ADDRESS=https://rte-2.example:8000 APP_URL={appUrl} RTE_RUNNER_NAME=datacenter-2 npm run rte
      </pre>
      <p className="mt-2">
        Over https it makes a certificate once and its request shows that certificate&apos;s SHA-256 fingerprint: compare it with the one
        the runner logs before you approve. The app then connects only to that certificate; after a certificate change, Re-pin certificate
        trusts the new one.
      </p>
    </div>
  );
}
