/**
 * The `/ui` namespace: browsers following a job. A browser never talks to an RTE; it joins
 * the job's room here and receives only lines newer than the last one it has.
 */
import type { Server } from "socket.io";
import { z } from "zod";
import { userForToken } from "../data/auth-tokens";
import { getJobView, listOutput, type OutputChunk } from "../data/jobs";
import type { JobItem } from "../protocol/rte-messages";
import { SESSION_COOKIE, readCookie } from "../auth/session";
import { playformRuntime } from "../runtime";

export const UI_NAMESPACE = "/ui";
const followSchema = z.object({ jobId: z.number().int().positive(), after: z.number().int().min(0).default(0) });
const CATCH_UP_PAGE = 2_000;

const room = (jobId: number) => `job:${jobId}`;

export function attachUiHub(io: Server): void {
  const namespace = io.of(UI_NAMESPACE);
  namespace.use((socket, next) => {
    const auth = socket.handshake.auth as { token?: unknown } | undefined;
    const token = typeof auth?.token === "string" ? auth.token : readCookie(socket.handshake.headers.cookie, SESSION_COOKIE);
    if (!token) return next(new Error("not logged in"));
    void userForToken(token).then(
      (user) => (user ? next() : next(new Error("session expired: log in again"))),
      () => next(new Error("internal error")),
    );
  });
  namespace.on("connection", (socket) => {
    socket.on("job:follow", (payload: unknown) => {
      const parsed = followSchema.safeParse(payload);
      if (!parsed.success) return;
      const { jobId, after } = parsed.data;
      void (async () => {
        // Join first, then catch up from the database: a chunk stored in between arrives
        // twice at worst (the browser skips seqs it has), never not at all.
        await socket.join(room(jobId));
        let cursor = after;
        for (;;) {
          const chunks = await listOutput(jobId, cursor, CATCH_UP_PAGE);
          if (chunks.length === 0) break;
          socket.emit("job:chunks", { jobId, chunks });
          cursor = chunks[chunks.length - 1]!.seq;
          if (chunks.length < CATCH_UP_PAGE) break;
        }
        const job = await getJobView(jobId);
        if (job) socket.emit("job:status", { jobId, job });
      })().catch((error: unknown) => console.error(`[ui-hub] follow of job ${jobId} failed:`, error));
    });
    socket.on("job:unfollow", (payload: unknown) => {
      const parsed = followSchema.safeParse(payload);
      if (parsed.success) void socket.leave(room(parsed.data.jobId));
    });
  });
}

export function publishJobItems(jobId: number, items: JobItem[]): void {
  const io = playformRuntime().io;
  if (!io) return;
  const chunks: OutputChunk[] = [];
  for (const item of items) {
    if (item.kind === "output") chunks.push({ seq: item.seq, stream: item.stream, text: item.text });
    else if (item.kind === "log") chunks.push({ seq: item.seq, stream: "rte", text: item.text });
  }
  if (chunks.length > 0) io.of(UI_NAMESPACE).to(room(jobId)).emit("job:chunks", { jobId, chunks });
}

export async function publishJobStatus(jobId: number): Promise<void> {
  const io = playformRuntime().io;
  if (!io) return;
  const job = await getJobView(jobId);
  if (job) io.of(UI_NAMESPACE).to(room(jobId)).emit("job:status", { jobId, job });
}
