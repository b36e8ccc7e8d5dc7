import { randomUUID } from "node:crypto";
import { getDb } from "./db";
import { Prisma } from "./generated/sqlite/client";
import { environmentReportSchema, type EnvironmentReport } from "../protocol/rte-messages";
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

/** The start command's local runner as stored: what decides whether its token can be kept. */
export async function findLocalRunner(
  name: string,
): Promise<{ id: string; status: RunnerStatus; tokenHash: string | null; tokenSeed: string | null } | null> {
  return getDb().runner.findUnique({ where: { name }, select: { id: true, status: true, tokenHash: true, tokenSeed: true } });
}

/** How many instances of a runner are connected and were heard from (or reserved) since `aliveSince`. */
export async function countLiveInstances(runnerId: string, aliveSince: Date): Promise<number> {
  return getDb().runnerInstance.count({ where: { runnerId, connected: true, lastSeenAt: { gte: aliveSince } } });
}

/**
 * The runner of the start command's local RTE, created approved (and default when no other
 * default exists) or re-approved, with the given token and the seed it was derived from. The
 * token is handed to the child process through its environment, so the operator never copies
 * it by hand. App nodes running at the same time pass the same token (see server/bootstrap.ts):
 * a node that replaced it would lock the other nodes' local RTEs out.
 */
export async function provisionLocalRunner(name: string, capacity: number, token: string, tokenSeed: string): Promise<RunnerIdentity> {
  const db = getDb();
  const hasDefault = (await db.runner.count({ where: { isDefault: true, NOT: { name } } })) > 0;
  const runner = await db.runner.upsert({
    where: { name },
    create: {
      id: randomUUID(),
      name,
      status: "approved",
      tokenHash: sha256Hex(token),
      tokenSeed,
      isDefault: !hasDefault,
      capacity,
      decidedAt: new Date(),
    },
    update: { status: "approved", tokenHash: sha256Hex(token), tokenSeed, capacity },
  });
  return { id: runner.id, name: runner.name };
}

/**
 * An instance id for this node's local RTE: `local-N` with the lowest N no live instance of the
 * runner uses (connected, heard from since `aliveSince`), so several app nodes' local RTEs are
 * distinct instances (one instance's state report would otherwise abandon the jobs of another)
 * and the first one keeps the familiar `local-0`. The row is written at once, as if connected,
 * so a node starting right after this one (under the start-up lock) picks the next id; the
 * RTE's own connection then takes the row over. A reservation, like an instance, no longer
 * counts once its last sign of life is older than `aliveSince`.
 */
export async function reserveLocalInstance(runnerId: string, nodeId: string, capacity: number, aliveSince: Date): Promise<string> {
  const db = getDb();
  const live = await db.runnerInstance.findMany({
    where: { runnerId, connected: true, lastSeenAt: { gte: aliveSince } },
    select: { instanceId: true },
  });
  const taken = new Set(live.map((i) => i.instanceId));
  let n = 0;
  while (taken.has(`local-${n}`)) n++;
  const instanceId = `local-${n}`;
  const now = new Date();
  await db.runnerInstance.upsert({
    where: { runnerId_instanceId: { runnerId, instanceId } },
    create: { id: randomUUID(), runnerId, instanceId, nodeId, capacity, connected: true, connectedAt: now, lastSeenAt: now },
    update: { nodeId, capacity, connected: true, connectedAt: now, lastSeenAt: now, runningJobs: 0 },
  });
  return instanceId;
}

/** The runner a job goes to: the form's named runner, else the default one. */
export async function resolveRunnerFor(name: string | undefined): Promise<{ id: string; name: string } | null> {
  const db = getDb();
  const runner = name
    ? await db.runner.findUnique({ where: { name } })
    : await db.runner.findFirst({ where: { isDefault: true, status: "approved" } });
  return runner && runner.status === "approved" ? { id: runner.id, name: runner.name } : null;
}

/**
 * The runners of these names (those that exist): id, status, and whether an instance is
 * connected now (a form's choice of runners shows it; a job for a runner that is away waits).
 */
export async function runnerStatesByName(names: readonly string[]): Promise<Map<string, { id: string; status: string; connected: boolean }>> {
  const rows = await getDb().runner.findMany({
    where: { name: { in: [...names] } },
    select: { id: true, name: true, status: true, _count: { select: { instances: { where: { connected: true } } } } },
  });
  return new Map(rows.map((row) => [row.name, { id: row.id, status: row.status, connected: row._count.instances > 0 }]));
}

/** A runner's name and the load of its connected instances (on any app node), or null. */
export async function findRunnerLoad(
  runnerId: string,
): Promise<{
  name: string;
  connectedInstances: { runningJobs: number; capacity: number; environments: EnvironmentReport[] | null }[];
} | null> {
  const runner = await getDb().runner.findUnique({
    where: { id: runnerId },
    select: { name: true, instances: { where: { connected: true }, select: { runningJobs: true, capacity: true, environments: true } } },
  });
  if (!runner) return null;
  // Null stays null (an older RTE, which offers `default`); a report that cannot be read offers nothing.
  const connectedInstances = runner.instances.map((i) => ({
    ...i,
    environments: i.environments === null ? null : storedEnvironments(i.environments),
  }));
  return { name: runner.name, connectedInstances };
}

/** Runner instances whose last heartbeat is older than `cutoff`, with the interval they keep (null: 15 s). */
export async function listInstancesSilentSince(
  cutoff: Date,
): Promise<{ runnerId: string; runnerName: string; instanceId: string; lastSeenAt: Date; heartbeatMs: number | null }[]> {
  const rows = await getDb().runnerInstance.findMany({
    where: { lastSeenAt: { lt: cutoff } },
    select: { runnerId: true, instanceId: true, lastSeenAt: true, heartbeatMs: true, runner: { select: { name: true } } },
  });
  return rows.map((r) => ({
    runnerId: r.runnerId,
    runnerName: r.runner.name,
    instanceId: r.instanceId,
    lastSeenAt: r.lastSeenAt,
    heartbeatMs: r.heartbeatMs,
  }));
}

/** What an instance reported when it connected (its handshake), and the heartbeat interval it was told to keep. */
export interface InstanceReport {
  capacity: number;
  version: string;
  /** Null: an RTE that keeps its fixed 15 s. */
  heartbeatMs: number | null;
  /** Null: an RTE too old to report its environments. */
  environments: EnvironmentReport[] | null;
}

export async function recordInstanceConnected(runnerId: string, instanceId: string, nodeId: string, report: InstanceReport): Promise<void> {
  const db = getDb();
  const now = new Date();
  const { capacity, version, heartbeatMs } = report;
  // Written even when absent (an RTE downgraded): an older report would describe another build.
  const environments = report.environments ?? Prisma.DbNull;
  const data = { nodeId, capacity, version, heartbeatMs, environments, connected: true, connectedAt: now, lastSeenAt: now };
  await db.runnerInstance.upsert({
    where: { runnerId_instanceId: { runnerId, instanceId } },
    create: { id: randomUUID(), runnerId, instanceId, ...data },
    update: data,
  });
  await db.runner.update({ where: { id: runnerId }, data: { lastHeartbeatAt: now, version } });
}

/** An instance's environments report, sent after it connected (`rte:environments`). */
export async function recordInstanceEnvironments(runnerId: string, instanceId: string, environments: EnvironmentReport[]): Promise<void> {
  await getDb().runnerInstance.updateMany({ where: { runnerId, instanceId }, data: { environments } });
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

export interface JoinRequest {
  name: string;
  address: string | null;
  mode: "outbound" | "inbound";
  version: string;
  capacity: number;
  certFingerprint: string | null;
  /** The host name the RTE reported (null: an RTE too old to say). */
  hostName: string | null;
  /** The client address the request came from, as the app saw it. */
  joinAddress: string;
}

/**
 * A new runner asks to join: stored pending, with a secret only the asking RTE holds. Null when
 * a runner of that name exists.
 */
export async function createJoinRequest(request: JoinRequest): Promise<{ runnerId: string; joinSecret: string } | null> {
  const db = getDb();
  if (await db.runner.findUnique({ where: { name: request.name } })) return null;
  const joinSecret = newSecret("pfj");
  const runner = await db.runner.create({
    data: {
      id: randomUUID(),
      name: request.name,
      status: "pending",
      joinSecretHash: sha256Hex(joinSecret),
      mode: request.mode,
      address: request.address,
      version: request.version,
      capacity: request.capacity,
      certFingerprint: request.certFingerprint,
      hostName: request.hostName,
      joinAddress: request.joinAddress,
    },
  });
  return { runnerId: runner.id, joinSecret };
}

export type JoinStatus =
  | { status: "pending" }
  | { status: "approved"; token: string }
  | { status: "collected" }
  | { status: "rejected" | "revoked" }
  | { status: "unknown" };

/**
 * What a waiting RTE learns about its request. The token is handed out exactly once: it is
 * erased in the same conditional update that reads it, so two pollers cannot both get it.
 */
export async function pollJoinRequest(runnerId: string, joinSecret: string): Promise<JoinStatus> {
  const db = getDb();
  const runner = await db.runner.findUnique({ where: { id: runnerId } });
  if (!runner || !runner.joinSecretHash || runner.joinSecretHash !== sha256Hex(joinSecret)) return { status: "unknown" };
  if (runner.status === "rejected" || runner.status === "revoked") return { status: runner.status };
  if (runner.status === "pending") return { status: "pending" };
  if (!runner.pendingToken) return { status: "collected" };
  const taken = await db.runner.updateMany({
    where: { id: runnerId, pendingToken: runner.pendingToken },
    data: { pendingToken: null },
  });
  return taken.count === 1 ? { status: "approved", token: runner.pendingToken } : { status: "collected" };
}

export async function findRunner(id: string) {
  return getDb().runner.findUnique({ where: { id } });
}

/**
 * Approves a pending runner: issues its token, held until the waiting RTE collects it. This and
 * the other state changes below are conditional updates: false (rotateRunnerToken: null) when the
 * runner was not in the state the change needs.
 */
export async function approveRunner(id: string): Promise<boolean> {
  const token = newSecret("pfr");
  const db = getDb();
  const runner = await db.runner.findUnique({ where: { id }, select: { certFingerprint: true } });
  const now = new Date();
  const result = await db.runner.updateMany({
    // The fingerprint the join request named is pinned now (trust on first use): the conditional
    // update pins exactly the one the admin saw, or nothing.
    where: { id, status: "pending", certFingerprint: runner?.certFingerprint ?? null },
    data: {
      status: "approved",
      tokenHash: sha256Hex(token),
      pendingToken: token,
      decidedAt: now,
      certPinnedAt: runner?.certFingerprint ? now : null,
    },
  });
  return result.count === 1;
}

export interface InboundRunner {
  id: string;
  name: string;
  status: RunnerStatus;
  mode: string;
  address: string | null;
  tokenHash: string | null;
  certFingerprint: string | null;
  inboundNoTls: boolean;
}

const inboundSelect = {
  id: true,
  name: true,
  status: true,
  mode: true,
  address: true,
  tokenHash: true,
  certFingerprint: true,
  inboundNoTls: true,
} as const;

export async function findInboundRunner(id: string): Promise<InboundRunner | null> {
  return getDb().runner.findUnique({ where: { id }, select: inboundSelect });
}

/**
 * How the app's last connection to an inbound runner went: `error` null once it works. The
 * fingerprint of the certificate the runner presented is kept either way (what a re-pin pins).
 */
export async function recordLinkOutcome(id: string, error: string | null, presentedFingerprint?: string | null): Promise<void> {
  await getDb().runner.updateMany({
    where: { id },
    data: {
      linkError: error,
      linkErrorAt: error ? new Date() : null,
      ...(presentedFingerprint !== undefined && presentedFingerprint !== null ? { presentedFingerprint } : {}),
    },
  });
}

/**
 * An admin accepts the certificate an inbound runner presents now (it changed on purpose): the
 * fingerprint the app last saw becomes the pinned one. Null when there is none to pin.
 */
export async function repinRunner(id: string): Promise<string | null> {
  const db = getDb();
  const runner = await db.runner.findUnique({ where: { id } });
  if (!runner || runner.status !== "approved" || runner.mode !== "inbound" || !runner.presentedFingerprint) return null;
  const result = await db.runner.updateMany({
    where: { id, status: "approved", presentedFingerprint: runner.presentedFingerprint },
    data: { certFingerprint: runner.presentedFingerprint, certPinnedAt: new Date(), linkError: null, linkErrorAt: null },
  });
  return result.count === 1 ? runner.presentedFingerprint : null;
}

/** Whether the app may connect to an inbound runner over plain http (an admin's explicit choice). */
export async function setInboundNoTls(id: string, noTls: boolean): Promise<boolean> {
  const result = await getDb().runner.updateMany({ where: { id, mode: "inbound", status: { in: ["pending", "approved"] } }, data: { inboundNoTls: noTls } });
  return result.count === 1;
}

export async function rejectRunner(id: string): Promise<boolean> {
  const result = await getDb().runner.updateMany({
    where: { id, status: "pending" },
    data: { status: "rejected", decidedAt: new Date() },
  });
  return result.count === 1;
}

/** Revokes an approved runner: its token stops working at once (its sockets are closed). */
export async function revokeRunner(id: string): Promise<boolean> {
  const result = await getDb().runner.updateMany({
    where: { id, status: "approved" },
    data: { status: "revoked", tokenHash: null, pendingToken: null, isDefault: false, decidedAt: new Date() },
  });
  return result.count === 1;
}

/**
 * A new token for an approved runner, returned to the admin once (to put in the runner's
 * Secret; changing a Secret does not restart pods, so roll the StatefulSet afterwards).
 */
export async function rotateRunnerToken(id: string): Promise<string | null> {
  const token = newSecret("pfr");
  const result = await getDb().runner.updateMany({
    where: { id, status: "approved" },
    data: { tokenHash: sha256Hex(token), pendingToken: null },
  });
  return result.count === 1 ? token : null;
}

/** Makes an approved runner the default; false when it is not approved. */
export async function setDefaultRunner(id: string): Promise<boolean> {
  const db = getDb();
  const runner = await db.runner.findUnique({ where: { id } });
  if (!runner || runner.status !== "approved") return false;
  await db.$transaction([
    db.runner.updateMany({ where: { isDefault: true }, data: { isDefault: false } }),
    db.runner.update({ where: { id }, data: { isDefault: true } }),
  ]);
  return true;
}

export type RunnerStatus = "pending" | "approved" | "rejected" | "revoked";

export interface RunnerView {
  id: string;
  name: string;
  status: RunnerStatus;
  isDefault: boolean;
  mode: string;
  address: string | null;
  /** Where its join request came from (the client address the app saw), and the host name the RTE reported. */
  joinAddress: string | null;
  hostName: string | null;
  version: string | null;
  capacity: number;
  certFingerprint: string | null;
  certPinnedAt: string | null;
  inboundNoTls: boolean;
  linkError: string | null;
  linkErrorAt: string | null;
  presentedFingerprint: string | null;
  linkHolder: string | null;
  lastHeartbeatAt: string | null;
  createdAt: string;
  decidedAt: string | null;
  runningJobs: number;
  queuedJobs: number;
  /** The runner's environments by name, from its instances' reports (runnerEnvironments). */
  environments: EnvironmentReport[];
  instances: {
    instanceId: string;
    connected: boolean;
    runningJobs: number;
    capacity: number;
    version: string | null;
    lastSeenAt: string;
    /** What it reported at its last connection; empty for an RTE too old to report them. */
    environments: EnvironmentReport[];
  }[];
}

/** An instance's stored report; empty when there is none (an older RTE) or it cannot be read. */
function storedEnvironments(value: unknown): EnvironmentReport[] {
  const parsed = environmentReportSchema.array().safeParse(value);
  return parsed.success ? parsed.data : [];
}

/**
 * A runner's environments: each name its instances report, once, sorted by name. Its details
 * are one instance's: a connected instance's before a disconnected one's (whose report may be
 * out of date), one that works before one that reports an error, then the most recently
 * connected. So a runner lists what at least one of its instances can run, as that one found it.
 */
export function runnerEnvironments(
  instances: readonly { connected: boolean; connectedAt: Date; environments: readonly EnvironmentReport[] }[],
): EnvironmentReport[] {
  const ranked = [...instances].sort((a, b) => Number(b.connected) - Number(a.connected) || b.connectedAt.getTime() - a.connectedAt.getTime());
  const chosen = new Map<string, { report: EnvironmentReport; connected: boolean }>();
  for (const instance of ranked) {
    for (const report of instance.environments) {
      const held = chosen.get(report.name);
      const better = !held || (held.connected === instance.connected && held.report.error !== null && report.error === null);
      if (better) chosen.set(report.name, { report, connected: instance.connected });
    }
  }
  return [...chosen.values()].map((c) => c.report).sort((a, b) => a.name.localeCompare(b.name));
}

/** Deletes a rejected runner (its name is free again); false when there is none or it is not rejected. */
export async function deleteRejectedRunner(id: string): Promise<boolean> {
  return (await getDb().runner.deleteMany({ where: { id, status: "rejected" } })).count === 1;
}

export async function listRunnerViews(): Promise<RunnerView[]> {
  const db = getDb();
  const runners = await db.runner.findMany({ orderBy: [{ status: "asc" }, { name: "asc" }], include: { instances: { orderBy: { instanceId: "asc" } } } });
  const counts = await db.job.groupBy({ by: ["runnerId", "status"], where: { status: { in: ["queued", "running"] } }, _count: { _all: true } });
  const count = (runnerId: string, status: string) =>
    counts.find((c) => c.runnerId === runnerId && c.status === status)?._count._all ?? 0;
  return runners.map((r) => ({
    id: r.id,
    name: r.name,
    status: r.status,
    isDefault: r.isDefault,
    mode: r.mode,
    address: r.address,
    joinAddress: r.joinAddress,
    hostName: r.hostName,
    version: r.version,
    capacity: r.capacity,
    certFingerprint: r.certFingerprint,
    certPinnedAt: r.certPinnedAt?.toISOString() ?? null,
    inboundNoTls: r.inboundNoTls,
    linkError: r.linkError,
    linkErrorAt: r.linkErrorAt?.toISOString() ?? null,
    presentedFingerprint: r.presentedFingerprint,
    linkHolder: r.linkHolder,
    lastHeartbeatAt: r.lastHeartbeatAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    decidedAt: r.decidedAt?.toISOString() ?? null,
    runningJobs: count(r.id, "running"),
    queuedJobs: count(r.id, "queued"),
    environments: runnerEnvironments(r.instances.map((i) => ({ ...i, environments: storedEnvironments(i.environments) }))),
    instances: r.instances.map((i) => ({
      instanceId: i.instanceId,
      connected: i.connected,
      runningJobs: i.runningJobs,
      capacity: i.capacity,
      version: i.version,
      lastSeenAt: i.lastSeenAt.toISOString(),
      environments: storedEnvironments(i.environments),
    })),
  }));
}
