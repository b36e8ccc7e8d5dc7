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
    </div>
  );
}
