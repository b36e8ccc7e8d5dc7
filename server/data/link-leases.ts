/**
 * Leases on inbound links: with several app nodes, exactly one holds the link to each inbound
 * runner. The lease is two columns of the runner (`linkHolder`, `linkLeaseEpoch`); every write
 * is a compare-and-set (`updateMany` with the expected values in its `where`), so two nodes
 * racing for the same runner cannot both win, on SQLite or PostgreSQL.
 *
 * Expiry is judged without comparing clocks across nodes (as Kubernetes' leader election
 * does): the holder bumps the epoch every few seconds, and another node counts on its own
 * clock how long it has seen the same (holder, epoch) pair.
 */
import { getDb } from "./db";

export interface LinkLeaseState {
  runnerId: string;
  holder: string | null;
  epoch: number;
  /** What the link is opened with: when it changes (an admin re-pinned, say), the holder reconnects at once. */
  settings: string;
}

/** Renews every lease `nodeId` holds (one write, however many runners). */
export async function renewLinkLeases(nodeId: string): Promise<void> {
  await getDb().runner.updateMany({
    where: { linkHolder: nodeId, status: "approved", mode: "inbound" },
    data: { linkLeaseEpoch: { increment: 1 } },
  });
}

/** The lease of every approved inbound runner. */
export async function listLinkLeases(): Promise<LinkLeaseState[]> {
  const rows = await getDb().runner.findMany({
    where: { status: "approved", mode: "inbound" },
    select: { id: true, linkHolder: true, linkLeaseEpoch: true, address: true, certFingerprint: true, inboundNoTls: true, tokenHash: true },
  });
  return rows.map((row) => ({
    runnerId: row.id,
    holder: row.linkHolder,
    epoch: row.linkLeaseEpoch,
    settings: JSON.stringify([row.address, row.certFingerprint, row.inboundNoTls, row.tokenHash]),
  }));
}

/**
 * Takes the link to a runner when its lease is still as observed (free, or the same holder and
 * epoch that stood still for the lease time). False when another node changed it first.
 */
export async function takeLinkLease(nodeId: string, observed: Pick<LinkLeaseState, "runnerId" | "holder" | "epoch">): Promise<boolean> {
  const result = await getDb().runner.updateMany({
    where: { id: observed.runnerId, linkHolder: observed.holder, linkLeaseEpoch: observed.epoch, status: "approved", mode: "inbound" },
    data: { linkHolder: nodeId, linkLeaseEpoch: observed.epoch + 1 },
  });
  return result.count === 1;
}

/** Gives up this node's links (it is stopping), so another node takes them at once. */
export async function releaseLinkLeases(nodeId: string): Promise<void> {
  await getDb().runner.updateMany({
    where: { linkHolder: nodeId },
    data: { linkHolder: null, linkLeaseEpoch: { increment: 1 } },
  });
}
