/**
 * What the custom server shares with Next's route handlers. Next compiles route handlers into
 * its own bundle, so a module-level singleton would exist twice; globalThis is the one object
 * both see.
 */
import type { Server as SocketServer } from "socket.io";
import type { JobUpdate } from "./hub/job-updates";

export interface PlayformRuntime {
  io: SocketServer | null;
  nodeId: string;
  kickDispatcher: () => void;
  /** Tells every app node's followers of the job that it has new output and/or status. */
  publishJobUpdate: (update: JobUpdate) => void;
  /** Closes the sockets this node holds for a runner (after revoke or rotate). */
  disconnectRunner: (runnerId: string, reason: string) => void;
  /** Why this node is not ready (database unreachable, migrations pending), or null when ready. */
  notReadyReason: () => Promise<string | null>;
}

const KEY = Symbol.for("playform.runtime");

export function playformRuntime(): PlayformRuntime {
  const holder = globalThis as typeof globalThis & { [KEY]?: PlayformRuntime };
  holder[KEY] ??= {
    io: null,
    nodeId: "unset",
    kickDispatcher: () => undefined,
    publishJobUpdate: () => undefined,
    disconnectRunner: () => undefined,
    notReadyReason: async () => "the server has not finished starting",
  };
  return holder[KEY];
}
