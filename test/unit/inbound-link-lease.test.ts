/**
 * The lease on inbound links (server/hub/inbound-links.ts, server/data/link-leases.ts) with
 * several app nodes, on a real migrated SQLite database: exactly one node holds each link, a
 * dead holder's link is taken over once its lease stood still, a stopping node hands its links
 * over at once, and a revoked runner's link is dropped. The runners' addresses lead nowhere
 * (connections are refused and retried): what is checked is who holds which link.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "../../server/data/db";
import { listLinkLeases, takeLinkLease } from "../../server/data/link-leases";
import { InboundLinks } from "../../server/hub/inbound-links";
import type { RteHub } from "../../server/hub/rte-hub";
import { useTempSqliteDatabase } from "../support/temp-db";
import { waitFor } from "../support/wait";

const LEASE_MS = 1_000;
const hub = {} as RteHub;
let cleanup: () => Promise<void>;
const nodes: InboundLinks[] = [];

function node(nodeId: string): InboundLinks {
  const links = new InboundLinks(hub, { nodeId, leaseMs: LEASE_MS });
  nodes.push(links);
  links.start();
  return links;
}

async function addRunner(id: string, status: "approved" | "revoked" = "approved") {
  await getDb().runner.create({
    data: { id, name: id, status, mode: "inbound", address: "https://127.0.0.1:9/", tokenHash: `hash-${id}`, certFingerprint: "AA:BB" },
  });
}

const holderOf = async (runnerId: string) => (await listLinkLeases()).find((lease) => lease.runnerId === runnerId)?.holder ?? null;

beforeEach(async () => {
  ({ cleanup } = await useTempSqliteDatabase());
});
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((links) => links.stop()));
  await cleanup();
});

describe("inbound link leases", () => {
  it("gives each link to exactly one of three nodes, and keeps it there while the holder renews", async () => {
    await addRunner("r1");
    await addRunner("r2");
    const all = [node("a"), node("b"), node("c")];
    await waitFor("both links held", () => all.flatMap((links) => links.held()).length === 2);
    const before = { r1: await holderOf("r1"), r2: await holderOf("r2") };
    // Several lease times later nothing moved: renewals keep the holders, nobody doubles up.
    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS));
    expect(all.flatMap((links) => links.held()).sort()).toEqual(["r1", "r2"]);
    expect({ r1: await holderOf("r1"), r2: await holderOf("r2") }).toEqual(before);
    for (const links of all) {
      const mine = links.held();
      for (const runnerId of mine) expect(await holderOf(runnerId)).toBe(["a", "b", "c"][all.indexOf(links)]);
    }
  });

  it("takes over a dead node's link once its lease stood still, and only one node does", async () => {
    await addRunner("r1");
    // A node that took the link and then died: its epoch never moves again.
    expect(await takeLinkLease("dead", { runnerId: "r1", holder: null, epoch: 0 })).toBe(true);
    const started = Date.now();
    const all = [node("a"), node("b")];
    await waitFor("the link taken over", () => all.some((links) => links.held().includes("r1")), { timeoutMs: 5 * LEASE_MS });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(LEASE_MS * 0.5);
    expect(all.filter((links) => links.held().includes("r1"))).toHaveLength(1);
    expect(await holderOf("r1")).toMatch(/^[ab]$/);
  });

  it("hands a stopping node's links to another at once, not after the lease time", async () => {
    await addRunner("r1");
    const a = node("a");
    await waitFor("a holds the link", () => a.held().includes("r1"));
    const b = node("b");
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2));
    expect(b.held()).toEqual([]);
    await a.stop();
    expect(await holderOf("r1")).toBeNull();
    await waitFor("b holds the link", () => b.held().includes("r1"), { timeoutMs: LEASE_MS });
    expect(await holderOf("r1")).toBe("b");
  });

  it("drops the link of a runner revoked by another node", async () => {
    await addRunner("r1");
    const a = node("a");
    await waitFor("a holds the link", () => a.held().includes("r1"));
    await getDb().runner.update({ where: { id: "r1" }, data: { status: "revoked" } });
    await waitFor("a dropped the link", () => a.held().length === 0, { timeoutMs: LEASE_MS });
  });

  it("refuses a take-over when the lease moved since it was observed (compare-and-set)", async () => {
    await addRunner("r1");
    expect(await takeLinkLease("a", { runnerId: "r1", holder: null, epoch: 0 })).toBe(true);
    // b and c both saw the lease free at epoch 0: both lose, a keeps it.
    expect(await takeLinkLease("b", { runnerId: "r1", holder: null, epoch: 0 })).toBe(false);
    expect(await takeLinkLease("c", { runnerId: "r1", holder: "a", epoch: 0 })).toBe(false);
    expect(await holderOf("r1")).toBe("a");
    expect(await takeLinkLease("c", { runnerId: "r1", holder: "a", epoch: 1 })).toBe(true);
    expect(await holderOf("r1")).toBe("c");
  });
});
