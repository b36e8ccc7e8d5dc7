/**
 * The `/ui` namespace: browsers following a job. A browser never talks to an RTE; it follows
 * the job here and receives only chunks newer than the last one it has, in order, each once.
 *
 * Every follower has a cursor (the last seq sent). Whatever the trigger (the follow request
 * itself, new items stored on this node, news from another node), delivery is the same:
 * read the chunks after the cursor from the database and send them. One read at a time per
 * follower, and a trigger during a read causes one more read, so nothing stored is skipped.
 */
import type { Server, Socket } from "socket.io";
import { userForToken } from "../data/auth-tokens";
import { getJobView, listOutput, type JobView } from "../data/jobs";
import { SESSION_COOKIE, readCookie } from "../auth/session";
import {
  UI_CONTRACT_VERSION,
  UI_NAMESPACE,
  UiEvents,
  jobFollowSchema,
  jobUnfollowSchema,
  type JobChunks,
  type JobStatusMessage,
  type JobView as WireJobView,
} from "../protocol/ui-messages";
import type { JobUpdate, JobUpdateBus } from "./job-updates";

const PAGE = 2_000;

/**
 * The job the database layer builds is the one the /ui contract carries, field for field: a
 * field added (or retyped) on one side only fails to compile here instead of being dropped
 * by the browser's parser.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<JobView, WireJobView>;

interface Follower {
  socket: Socket;
  jobId: number;
  cursor: number;
  reading: boolean;
  again: boolean;
}

export class UiHub {
  /** jobId -> followers on this node. */
  private readonly followers = new Map<number, Set<Follower>>();

  constructor(private readonly bus: JobUpdateBus) {
    bus.subscribe((update) => this.onUpdate(update));
  }

  attach(io: Server): void {
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
      const mine = new Map<number, Follower>();
      socket.on(UiEvents.follow, (payload: unknown) => {
        const parsed = jobFollowSchema.safeParse(payload);
        if (!parsed.success) return;
        const { jobId, after } = parsed.data;
        this.remove(mine.get(jobId));
        const follower: Follower = { socket, jobId, cursor: after, reading: false, again: false };
        mine.set(jobId, follower);
        let set = this.followers.get(jobId);
        if (!set) this.followers.set(jobId, (set = new Set()));
        set.add(follower);
        this.pump(follower);
        void this.sendStatus(jobId, [follower]);
      });
      socket.on(UiEvents.unfollow, (payload: unknown) => {
        const parsed = jobUnfollowSchema.safeParse(payload);
        if (!parsed.success) return;
        this.remove(mine.get(parsed.data.jobId));
        mine.delete(parsed.data.jobId);
      });
      socket.on("disconnect", () => {
        for (const follower of mine.values()) this.remove(follower);
        mine.clear();
      });
    });
  }

  /** Tells every app node (this one included) that a job has news. */
  publish(update: JobUpdate): void {
    this.bus.publish(update);
  }

  private onUpdate(update: JobUpdate): void {
    const set = this.followers.get(update.jobId);
    if (!set || set.size === 0) return;
    if (update.output) for (const follower of set) this.pump(follower);
    if (update.status) void this.sendStatus(update.jobId, [...set]);
  }

  private pump(follower: Follower): void {
    if (follower.reading) {
      follower.again = true;
      return;
    }
    follower.reading = true;
    void (async () => {
      try {
        do {
          follower.again = false;
          for (;;) {
            const chunks = await listOutput(follower.jobId, follower.cursor, PAGE);
            if (chunks.length === 0 || !follower.socket.connected) break;
            follower.cursor = chunks[chunks.length - 1]!.seq;
            follower.socket.emit(UiEvents.chunks, { v: UI_CONTRACT_VERSION, jobId: follower.jobId, chunks } satisfies JobChunks);
            if (chunks.length < PAGE) break;
          }
        } while (follower.again && follower.socket.connected);
      } finally {
        // In the same synchronous step as the loop's last check: a trigger cannot slip between.
        follower.reading = false;
      }
    })().catch((error: unknown) => console.error(`[ui-hub] sending output of job ${follower.jobId} failed:`, error));
  }

  private async sendStatus(jobId: number, to: Follower[]): Promise<void> {
    try {
      const job = await getJobView(jobId);
      if (!job) return;
      const message = { v: UI_CONTRACT_VERSION, jobId, job } satisfies JobStatusMessage;
      for (const follower of to) follower.socket.emit(UiEvents.status, message);
    } catch (error) {
      console.error(`[ui-hub] sending the status of job ${jobId} failed:`, error);
    }
  }

  private remove(follower: Follower | undefined): void {
    if (!follower) return;
    const set = this.followers.get(follower.jobId);
    set?.delete(follower);
    if (set?.size === 0) this.followers.delete(follower.jobId);
  }
}
