/**
 * What an admin does to a runner (POST /api/runners/ID/ACTION): one row per action, saying how
 * it is applied, what it answers, why it is refused when the runner's state does not allow it,
 * and whether the runner's open links are closed afterwards.
 */
import { DomainError } from "../errors";
import { audited, type AuditAction } from "../audit/record";
import {
  approveRunner,
  deleteRejectedRunner,
  findRunner,
  rejectRunner,
  repinRunner,
  revokeRunner,
  rotateRunnerToken,
  setDefaultRunner,
  setInboundNoTls,
} from "../data/runners";
import { playformRuntime } from "../runtime";

interface RunnerAction {
  /** Applies the action: the answer, or null when the runner's state does not allow it. */
  apply: (id: string) => Promise<Record<string, unknown> | null>;
  /** The 409's message when apply refused. */
  refused: string;
  /** Closes the sockets the runner holds, with this reason, once applied. */
  disconnect?: string;
  /** An inbound runner: this node connects to it anew once applied. */
  reconnect?: boolean;
}

const ACTIONS = {
  approve: {
    apply: async (id) => ((await approveRunner(id)) ? { status: "approved" } : null),
    refused: "only a pending runner can be approved",
    reconnect: true,
  },
  reject: {
    apply: async (id) => ((await rejectRunner(id)) ? { status: "rejected" } : null),
    refused: "only a pending runner can be rejected",
  },
  revoke: {
    apply: async (id) => ((await revokeRunner(id)) ? { status: "revoked" } : null),
    refused: "only an approved runner can be revoked",
    disconnect: "runner revoked by an admin",
  },
  rotate: {
    apply: async (id) => {
      const token = await rotateRunnerToken(id);
      // Shown once; only its hash is kept.
      return token === null ? null : { status: "approved", token };
    },
    refused: "only an approved runner's token can be rotated",
    disconnect: "token rotated by an admin: restart the runner with the new token",
  },
  /** Inbound: accept the certificate the runner presents now (it changed on purpose). */
  repin: {
    apply: async (id) => {
      const pinned = await repinRunner(id);
      return pinned === null ? null : { status: "approved", certFingerprint: pinned };
    },
    refused: "only an approved inbound runner that presented a certificate can be re-pinned",
    reconnect: true,
  },
  /** Inbound: the app may connect to this runner over plain http (no TLS, nothing pinned). */
  "no-tls": {
    apply: async (id) => ((await setInboundNoTls(id, true)) ? { inboundNoTls: true } : null),
    refused: "only a pending or approved inbound runner can be allowed without TLS",
    reconnect: true,
  },
  "require-tls": {
    apply: async (id) => ((await setInboundNoTls(id, false)) ? { inboundNoTls: false } : null),
    refused: "only a pending or approved inbound runner can be required to use TLS",
    disconnect: "an admin requires TLS for this runner",
    reconnect: true,
  },
  default: {
    apply: async (id) => ((await setDefaultRunner(id)) ? { status: "approved", isDefault: true } : null),
    refused: "only an approved runner can be the default",
  },
} satisfies Record<string, RunnerAction>;

export type RunnerActionName = keyof typeof ACTIONS;

/** The audit action of a runner action named in a URL; undefined for an unknown one (its 403 is recorded as admin.access). */
export function runnerAuditAction(action: string): AuditAction | undefined {
  return Object.hasOwn(ACTIONS, action) ? (`runner.${action}` as AuditAction) : undefined;
}

/**
 * Runs the named action on runner `id`: 404 for an unknown action or runner, 409 when refused.
 * Recorded in the audit trail by `actor` (the rotated token is never recorded).
 */
export async function runRunnerAction(id: string, action: string, actor: string): Promise<Record<string, unknown>> {
  if (!Object.hasOwn(ACTIONS, action)) {
    throw new DomainError("not_found", `unknown runner action "${action}" (expected one of ${Object.keys(ACTIONS).join(", ")})`);
  }
  const row: RunnerAction = ACTIONS[action as RunnerActionName];
  const runner = await findRunner(id);
  const audit = { actor, action: `runner.${action}` as AuditAction, target: `runner:${runner?.name ?? id}`, details: { runnerId: id } };
  return audited(audit, () => applyRunnerAction(id, row, runner !== null));
}

async function applyRunnerAction(id: string, row: RunnerAction, exists: boolean): Promise<Record<string, unknown>> {
  if (!exists) throw new DomainError("not_found", `no runner ${id}`);
  const answer = await row.apply(id);
  if (answer === null) throw new DomainError("conflict", row.refused);
  if (row.disconnect) playformRuntime().disconnectRunner(id, row.disconnect);
  if (row.reconnect) playformRuntime().refreshInboundRunner(id);
  return answer;
}

/**
 * Deletes a rejected runner (DELETE /api/runners/ID): the Runners page no longer lists it and
 * its name may ask to join again. Only a rejected one: a pending one is decided first, an
 * approved one is revoked (its jobs keep naming it). Audited as `runner.delete`.
 */
export async function deleteRunner(id: string, actor: string): Promise<void> {
  const runner = await findRunner(id);
  const audit = { actor, action: "runner.delete", target: `runner:${runner?.name ?? id}`, details: { runnerId: id } } as const;
  await audited(audit, async () => {
    if (!runner) throw new DomainError("not_found", `no runner ${id}`);
    if (!(await deleteRejectedRunner(id))) {
      throw new DomainError("conflict", `only a rejected runner can be deleted; runner "${runner.name}" is ${runner.status}`);
    }
  });
}
