/**
 * What the custom server shares with Next's route handlers. Next compiles route handlers into
 * a bundle of their own, so a module-level singleton would exist twice in one process, and the
 * custom server cannot pass them arguments; globalThis is the one object both see.
 *
 * Only route handlers read this holder. Domain code, the hubs and the dispatcher receive what
 * they need (the job lifecycle, the job-update publisher) from server/index.ts as arguments.
 */
import type { JobUpdate } from "./hub/job-updates";
import type { InventoryAnswer, ManifestEntry } from "./protocol/rte-messages";
import { recordJobHosts } from "./jobs/hosts";
import { JobLifecycle } from "./jobs/lifecycle";

export interface PlayformRuntime {
  /** Tells every app node's followers of the job that it has new output and/or status. */
  publishJobUpdate: (update: JobUpdate) => void;
  /** Asks this node's dispatcher for a pass now. */
  kickDispatcher: () => void;
  /** Closes the sockets this node holds for a runner (after revoke or rotate). */
  disconnectRunner: (runnerId: string, reason: string) => void;
  /**
   * Asks a connected instance of the runner, on this node, to list a form's inventory
   * (server/forms/host-choices.ts); null when none that can is connected here.
   */
  listInventory: (
    runnerId: string,
    /** `environment`: the form's (form.yaml), whose ansible-inventory lists it; absent: `default`. */
    request: { sourceDir: string; manifest: ManifestEntry[]; inventory: string; environment?: string; playbook?: string },
    timeoutMs: number,
  ) => Promise<InventoryAnswer | null>;
  /** An inbound runner's settings changed (approved, re-pinned, TLS allowed off): connect to it anew now. */
  refreshInboundRunner: (runnerId: string) => void;
  /** Why this node is not ready (database unreachable, migrations pending), or null when ready. */
  notReadyReason: () => Promise<string | null>;
}

const KEY = Symbol.for("playform.runtime");

export function playformRuntime(): PlayformRuntime {
  const holder = globalThis as typeof globalThis & { [KEY]?: PlayformRuntime };
  holder[KEY] ??= {
    publishJobUpdate: () => undefined,
    kickDispatcher: () => undefined,
    disconnectRunner: () => undefined,
    listInventory: async () => null,
    refreshInboundRunner: () => undefined,
    notReadyReason: async () => "the server has not finished starting",
  };
  return holder[KEY];
}

/**
 * The job lifecycle for a route handler, wired to this node's publisher and dispatcher.
 *
 * Built here from the route bundle's own modules rather than shared as the custom server's
 * instance: that instance's code comes from the other bundle, so the DomainErrors it throws
 * would not be `instanceof` the DomainError route() maps to an HTTP status (a 409 would turn
 * into a 500). The lifecycle holds no state of its own; only its two callbacks are shared.
 */
export function jobLifecycle(): JobLifecycle {
  const runtime = playformRuntime();
  return new JobLifecycle({
    publish: (update) => runtime.publishJobUpdate(update),
    wakeDispatcher: () => runtime.kickDispatcher(),
    onFinished: (jobId) => void recordJobHosts(jobId),
  });
}
