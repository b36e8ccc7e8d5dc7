/**
 * Three app nodes started at the same moment on one fresh PostgreSQL database, each with its
 * local runner (the `npm start` default): all three come up, and everything a start writes
 * exists once: one admin account, each example form, the demo credential, one `local` runner
 * whose token every node's local RTE can use, each RTE as an instance of its own.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient } from "../support/api";
import { withStartupLock } from "../../server/data/startup-lock";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";

let postgres: TestPostgres;
const nodes: RunningPlayform[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  postgres = await startPostgres();
  const env = {
    DATABASE_URL: postgres.url,
    PLAYFORM_ADMIN_PASSWORD: "three-nodes-admin",
    ENCRYPTION_SECRET: "multi-node-start-test-secret-0123456789",
    // Heartbeats every 2 s, so a token check on each would already have refused a stale token.
    RTE_HEARTBEAT_TIMEOUT_SECONDS: "8",
  };
  const started = await Promise.allSettled(
    ["a", "b", "c"].map((name) => startPlayform({ env: { ...env, PLAYFORM_NODE_ID: `node-${name}` } })),
  );
  for (const result of started) if (result.status === "fulfilled") nodes.push(result.value);
  const failed = started.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed.length > 0) throw new Error(`${failed.length} node(s) did not start:\n${failed.map((f) => String(f.reason)).join("\n")}`);
});
afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  await postgres?.stop();
});

it("starts all three nodes, and what a start writes exists once", async () => {
  expect(nodes).toHaveLength(3);
  for (const node of nodes) expect((await apiClient(node, "").call("GET", "/api/ready", { auth: false })).status).toBe(200);

  const node = nodes[0]!;
  const count = async (sql: string) => (await dbQuery<{ n: number }>(node, sql))[0]!.n;
  expect(await count(`SELECT count(*)::int AS n FROM "User"`)).toBe(1);
  const forms = await dbQuery<{ name: string }>(node, `SELECT name FROM "Form" ORDER BY name`);
  expect(forms.map((f) => f.name)).toEqual([
    "big-output",
    "choose-runner",
    "fails-on-purpose",
    "hello-world",
    "lab",
    "needs-approval",
    "system-report",
    "user-accounts",
    "vault-demo",
  ]);
  expect(await count(`SELECT count(*)::int AS n FROM "Credential"`)).toBe(1);
  expect(await count(`SELECT count(*)::int AS n FROM "Runner"`)).toBe(1);

  // Each node's local RTE is an instance of the one local runner, and stays connected through
  // several heartbeats (each re-checks its token).
  await sleep(5_000);
  const instances = await dbQuery<{ instanceId: string; connected: boolean }>(
    node,
    `SELECT "instanceId", connected FROM "RunnerInstance" ORDER BY "instanceId"`,
  );
  expect(instances).toEqual([
    { instanceId: "local-0", connected: true },
    { instanceId: "local-1", connected: true },
    { instanceId: "local-2", connected: true },
  ]);
  for (const n of nodes) expect(n.output()).not.toMatch(/closing runner|unknown runner token|cannot start/);

  // And the cluster works: a job launched on each node succeeds.
  const ids = await Promise.all(nodes.map(async (n) => [n, await apiClient(n, await adminToken(n)).launch("hello-world")] as const));
  for (const [n, id] of ids) expect((await apiClient(n, await adminToken(n)).waitForEnd(id)).status).toBe("success");
});

it("runs start-up writes one node at a time: the lock excludes the others until released", async () => {
  const events: string[] = [];
  await Promise.all(
    ["a", "b", "c"].map((name) =>
      withStartupLock(postgres.url, async () => {
        events.push(`enter ${name}`);
        await sleep(300);
        events.push(`leave ${name}`);
      }),
    ),
  );
  expect(events).toHaveLength(6);
  for (let i = 0; i < 6; i += 2) expect(events[i + 1]).toBe(events[i]!.replace("enter", "leave"));
});
