import { randomUUID } from "node:crypto";
import { getDb } from "./db";
import { newSecret, sha256Hex } from "../security/tokens";

export interface RunnerIdentity {
  id: string;
  name: string;
}

/** The approved runner a token belongs to, or why there is none. */
export async function runnerForToken(
  token: string,
): Promise<{ ok: true; runner: RunnerIdentity } | { ok: false; reason: string }> {
  const runner = await getDb().runner.findUnique({ where: { tokenHash: sha256Hex(token) } });
  if (!runner) return { ok: false, reason: "unknown runner token" };
  if (runner.status !== "approved") return { ok: false, reason: `runner ${runner.name} is ${runner.status}` };
  return { ok: true, runner: { id: runner.id, name: runner.name } };
}

/**
 * The runner of the start command's local RTE: created approved (and default when no other
 * default exists), with a fresh token on every start. The token is handed to the child
 * process through its environment, so the operator never copies it by hand.
 */
export async function provisionLocalRunner(name: string, capacity: number): Promise<{ token: string; runner: RunnerIdentity }> {
  const db = getDb();
  const token = newSecret("pfr");
  const hasDefault = (await db.runner.count({ where: { isDefault: true, NOT: { name } } })) > 0;
  const runner = await db.runner.upsert({
    where: { name },
    create: {
      id: randomUUID(),
      name,
      status: "approved",
      tokenHash: sha256Hex(token),
      isDefault: !hasDefault,
      capacity,
      decidedAt: new Date(),
    },
    update: { status: "approved", tokenHash: sha256Hex(token), capacity },
  });
  return { token, runner: { id: runner.id, name: runner.name } };
}

/** The runner a job goes to: the form's named runner, else the default one. */
export async function resolveRunnerFor(name: string | undefined): Promise<{ id: string; name: string } | null> {
  const db = getDb();
  const runner = name
    ? await db.runner.findUnique({ where: { name } })
    : await db.runner.findFirst({ where: { isDefault: true, status: "approved" } });
  return runner && runner.status === "approved" ? { id: runner.id, name: runner.name } : null;
}

export async function recordInstanceConnected(
  runnerId: string,
  instanceId: string,
  nodeId: string,
  capacity: number,
  version: string,
): Promise<void> {
  const db = getDb();
  const now = new Date();
  await db.runnerInstance.upsert({
    where: { runnerId_instanceId: { runnerId, instanceId } },
    create: { id: randomUUID(), runnerId, instanceId, nodeId, capacity, version, connected: true, connectedAt: now, lastSeenAt: now },
    update: { nodeId, capacity, version, connected: true, connectedAt: now, lastSeenAt: now },
  });
  await db.runner.update({ where: { id: runnerId }, data: { lastHeartbeatAt: now, version } });
}

export async function recordHeartbeat(runnerId: string, instanceId: string, runningJobs: number): Promise<void> {
  const db = getDb();
  const now = new Date();
  await db.runnerInstance.updateMany({ where: { runnerId, instanceId }, data: { lastSeenAt: now, runningJobs } });
  await db.runner.update({ where: { id: runnerId }, data: { lastHeartbeatAt: now } });
}

export async function recordInstanceDisconnected(runnerId: string, instanceId: string, nodeId: string): Promise<void> {
  // Only if still held by this node: the instance may already have reconnected through another.
  await getDb().runnerInstance.updateMany({ where: { runnerId, instanceId, nodeId }, data: { connected: false } });
}

export async function listRunners() {
  return getDb().runner.findMany({ orderBy: { name: "asc" }, include: { instances: true } });
}
