/**
 * Two app nodes on one PostgreSQL database: the runner is connected to node A only, the job is
 * launched and followed on node B. Node A dispatches it (the database is the queue) and its
 * output reaches B's follower through LISTEN/NOTIFY, in order and exactly once.
 */
import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  UI_CONTRACT_VERSION,
  UI_NAMESPACE,
  UiEvents,
  jobChunksSchema,
  jobStatusMessageSchema,
  type JobFollow,
} from "../../server/protocol/ui-messages";
import { apiClient } from "../support/api";
import { liveOutputStats } from "../support/live-output-stats";
import { adminToken, dbQuery, startPlayform, storedSeqs, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";
import { waitFor } from "../support/wait";

let postgres: TestPostgres;
let nodeA: RunningPlayform;
let nodeB: RunningPlayform;
let socket: Socket | undefined;

beforeAll(async () => {
  postgres = await startPostgres();
  nodeA = await startPlayform({ env: { DATABASE_URL: postgres.url, PLAYFORM_NODE_ID: "node-a" } });
  nodeB = await startPlayform({
    env: {
      DATABASE_URL: postgres.url,
      PLAYFORM_NODE_ID: "node-b",
      PLAYFORM_LOCAL_RTE: "false",
      PLAYFORM_ADMIN_PASSWORD: nodeA.adminPassword,
    },
  });
});
afterAll(async () => {
  socket?.close();
  await nodeB?.stop();
  await nodeA?.stop();
  await postgres?.stop();
});

it("runs a job launched on node B through the runner held by node A, streaming to B's follower", async () => {
  const token = await adminToken(nodeB);
  const api = apiClient(nodeB, token);
  const id = await api.launch("hello-world", { message: "across nodes" });

  const received: { seq: number; text: string }[] = [];
  let finalStatus = "";
  socket = io(`${nodeB.url}${UI_NAMESPACE}`, { auth: { token }, transports: ["websocket"] });
  // Parsed with the contract's schemas: a message off the contract fails the test.
  socket.on(UiEvents.chunks, (payload: unknown) => {
    const message = jobChunksSchema.parse(payload);
    if (message.jobId === id) received.push(...message.chunks);
  });
  socket.on(UiEvents.status, (payload: unknown) => {
    const message = jobStatusMessageSchema.parse(payload);
    if (message.jobId === id) finalStatus = message.job.status;
  });
  socket.on("connect", () => socket!.emit(UiEvents.follow, { v: UI_CONTRACT_VERSION, jobId: id, after: 0 } satisfies JobFollow));
  const progress = () => `status ${finalStatus || "none"}, ${received.length} chunk(s) received\n--- node A ---\n${nodeA.output()}`;
  await waitFor(`job ${id} to end, told on node B's socket`, () => ["success", "failed", "aborted", "abandoned"].includes(finalStatus), {
    timeoutMs: 90_000,
    details: progress,
  });
  expect(finalStatus).toBe("success");

  // What B's follower got is exactly what the database holds of the job's output (output and
  // runner log items, the ones a follower receives): the same sequence numbers and texts, in
  // order, each once. The end is stored after the last output; its NOTIFY may still travel.
  const stored = await dbQuery<{ seq: number; text: string | null }>(
    nodeA,
    'SELECT seq, text FROM "JobChunk" WHERE "jobId" = $1 AND kind IN ($2, $3) ORDER BY seq',
    [id, "output", "log"],
  );
  expect(stored.length).toBeGreaterThan(3);
  await waitFor("node B's follower to receive as many chunks as are stored", () => received.length >= stored.length, {
    timeoutMs: 15_000,
    details: progress,
  });
  expect(received.map((c) => c.seq)).toEqual(stored.map((c) => c.seq));
  expect(received.map((c) => c.text)).toEqual(stored.map((c) => c.text ?? ""));
  expect(received.map((c) => c.text).join("")).toContain("across nodes");
  expect(received.map((c) => c.text).join("")).toContain("PLAY RECAP");

  const all = await storedSeqs(nodeA, id);
  expect(all).toEqual(all.map((_, i) => i + 1));
  const job = await api.get(`/api/jobs/${id}`);
  expect(job.job.runner).toBe("local");
  expect(nodeA.output()).toMatch(/runner local instance local-0 connected/);
  expect(nodeB.output()).not.toMatch(/runner local instance/);

  // Node B stored nothing: its follower's output came from reading what node A stored, about
  // once per batch (the NOTIFY carries the batch's last seq, so no read is wasted), as the
  // nodes print when they stop (server/index.ts, "live output since start").
  socket.close();
  await nodeB.stop();
  await nodeA.stop();
  const [a, b] = [liveOutputStats(nodeA.output()), liveOutputStats(nodeB.output())];
  const context = JSON.stringify({ a, b });
  expect(a.batchesStored, context).toBeGreaterThan(0);
  expect(b.batchesStored, context).toBe(0);
  expect(b.directBroadcasts, context).toBe(0);
  expect(b.feedReads + b.catchUpReads, context).toBeGreaterThan(0);
  expect(b.feedReads, context).toBeLessThanOrEqual(a.batchesStored + 1);
  expect(b.catchUpReads, context).toBeLessThanOrEqual(2);
});
