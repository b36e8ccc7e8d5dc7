/**
 * Live output fans out per job, not per watcher: one job followed by 20 browser
 * sockets on one app node (real app, real local RTE, real ansible-playbook). Every follower
 * gets every line exactly once, in order, those who join mid-run included; and the app reads
 * the job's output about once per stored batch, plus one catch-up per follower that joins,
 * instead of once per batch and follower. The counts are the app's own, printed when it stops
 * (server/index.ts, "live output since start").
 */
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { chunkLines } from "../../server/protocol/output-lines";
import {
  UI_CONTRACT_VERSION,
  UI_NAMESPACE,
  UiEvents,
  jobChunksSchema,
  jobStatusMessageSchema,
  type JobFollow,
} from "../../server/protocol/ui-messages";
import { apiClient, type ApiClient } from "../support/api";
import { liveOutputStats } from "../support/live-output-stats";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

const FORMS = path.resolve(import.meta.dirname, "../fixtures/forms-output");
const EARLY = 18;
const LATE = 2;

let app: RunningPlayform;
let api: ApiClient;
let token: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS } });
  token = await adminToken(app);
  api = apiClient(app, token);
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await app?.stop();
});

interface Watcher {
  lines: Map<number, string>;
  duplicates: () => number;
  followed: () => boolean;
}

/** A browser socket following the job from its start (after: 0), recording each line it gets by number. */
function follow(jobId: number): Watcher {
  const socket = io(`${app.url}${UI_NAMESPACE}`, { auth: { token }, transports: ["websocket"] });
  sockets.push(socket);
  const lines = new Map<number, string>();
  let duplicates = 0;
  let followed = false;
  socket.on(UiEvents.chunks, (payload: unknown) => {
    const message = jobChunksSchema.parse(payload);
    if (message.jobId !== jobId) return;
    for (const chunk of message.chunks) {
      chunkLines(chunk.text).forEach((text, i) => {
        const n = chunk.firstLine + i;
        if (lines.has(n)) duplicates++;
        lines.set(n, text);
      });
    }
  });
  // The hub sends the job's status once it has checked access and added the follower.
  socket.on(UiEvents.status, (payload: unknown) => {
    if (jobStatusMessageSchema.parse(payload).jobId === jobId) followed = true;
  });
  socket.on("connect", () => socket.emit(UiEvents.follow, { v: UI_CONTRACT_VERSION, jobId, after: 0 } satisfies JobFollow));
  return { lines, duplicates: () => duplicates, followed: () => followed };
}

it("sends every line of a job to each of 20 followers once, reading the output about once per batch, not per follower", async () => {
  // A few hundred lines over several seconds, so they are stored in many batches; the wait
  // gives the early followers time to be in the room before the first tick.
  const jobId = await api.launch("live-ticks", { ticks: 80, wait_seconds: 2 });
  const early = Array.from({ length: EARLY }, () => follow(jobId));
  await waitFor("the early followers to be following", () => early.every((w) => w.followed()), { timeoutMs: 30_000 });
  await waitFor("the job to be part-way through its ticks", async () => (await api.get(`/api/jobs/${jobId}`)).job.lines > 60, {
    timeoutMs: 60_000,
    intervalMs: 100,
  });
  const late = Array.from({ length: LATE }, () => follow(jobId));
  const job = await api.waitForEnd(jobId);
  expect(job.status, app.output()).toBe("success");

  const all = (await api.get(`/api/jobs/${jobId}/lines?count=5000`)) as { total: number; lines: { n: number; text: string }[] };
  expect(all.total).toBeGreaterThan(200);
  expect(all.lines).toHaveLength(all.total);
  const watchers = [...early, ...late];
  for (const [i, watcher] of watchers.entries()) {
    await waitFor(`follower ${i + 1} to have every line`, () => watcher.lines.size >= all.total, {
      timeoutMs: 15_000,
      details: () => `${watcher.lines.size} of ${all.total} lines`,
    });
    expect(watcher.duplicates(), `follower ${i + 1}`).toBe(0);
    expect([...watcher.lines.keys()], `follower ${i + 1}`).toEqual(all.lines.map((l) => l.n));
    expect([...watcher.lines.values()], `follower ${i + 1}`).toEqual(all.lines.map((l) => l.text));
  }
  for (const socket of sockets) socket.close();

  // The app prints its counts when it stops; this app ran this one job only.
  await app.stop();
  const stats = liveOutputStats(app.output());
  const followers = watchers.length;
  const context = JSON.stringify({ ...stats, followers });
  // Enough batches for "per follower" to be told apart from "per batch".
  expect(stats.batchesStored, context).toBeGreaterThanOrEqual(5);
  // One broadcast per batch at most (a batch of events only has none), whatever the followers.
  expect(stats.broadcasts, context).toBeLessThanOrEqual(stats.batchesStored);
  // The node that stored a batch broadcasts it without reading it back; the shared feed reads
  // only when it cannot (a batch arriving while it catches up): at most about once per batch.
  expect(stats.directBroadcasts, context).toBeGreaterThan(0);
  expect(stats.feedReads, context).toBeLessThanOrEqual(stats.batchesStored + 1);
  // Catching up is per follower, once when it joins (twice if a batch lands meanwhile), not per batch.
  expect(stats.catchUpReads, context).toBeLessThanOrEqual(2 * followers);
  // Reading per batch and follower would have been batches × followers reads.
  expect(stats.feedReads + stats.catchUpReads, context).toBeLessThan(stats.batchesStored * followers);
});
