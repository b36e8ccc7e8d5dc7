/**
 * The `/ui` namespace: browsers following a job. A browser never talks to an RTE; it follows
 * the job here and receives only chunks newer than what it has, in order, each once.
 *
 * The cost scales with jobs, not with watchers. Each followed job has one feed per app node:
 * when the job has new output, the feed broadcasts it to a socket.io room holding every
 * follower of the job on this node (socket.io encodes a broadcast once). The node that stored
 * a batch broadcasts it as stored, without reading it back; other nodes read it from the
 * database once per batch. A new follower first catches up on its own, reading from its
 * cursor up to the point the feed has broadcast, and joins the room in the same synchronous
 * step as its last check, so nothing is skipped and nothing is sent twice.
 *
 * One read at a time per feed (and per catching-up follower): a trigger during a read causes
 * one more read, so nothing stored is missed.
 *
 * Access is decided at follow time and decided again every `recheckMs` (`recheckAccess`): a
 * socket whose session or token has ended is disconnected, and a follower who may no longer see
 * the job (removed from the form's groups, the form's access narrowed, demoted) stops receiving
 * it, as if the job did not exist. One check per user and job per sweep, whatever the sockets.
 */
import type { Namespace, Server, Socket } from "socket.io";
import { credentialForToken, userForToken } from "../data/auth-tokens";
import { effectiveScope, scopeAllows } from "../access/token-scopes";
import { findOutputState, listOutput, seqCursorForLine } from "../data/job-output";
import { getJobView, type JobView } from "../data/jobs";
import type { PublicUser } from "../data/users";
import { findVisibleJob, viewerOf } from "../access/policy";
import { SESSION_COOKIE, readCookie } from "../auth/session";
import { foreignOrigin, type SameOriginOptions } from "../auth/cross-site";
import { ensureIndexed } from "../jobs/output";
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
import type { JobUpdate, JobUpdateBus, StoredOutput } from "./job-updates";
import { loggerFor } from "../logging/logger";

const log = loggerFor({ component: "ui-hub" });

const PAGE = 2_000;

/**
 * The job the database layer builds is the one the /ui contract carries, field for field: a
 * field added (or retyped) on one side only fails to compile here instead of being dropped
 * by the browser's parser.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<JobView, WireJobView>;

/** What the namespace's middleware leaves on a socket it admits. */
interface SocketData {
  user: PublicUser;
  /** The session or API token it was admitted with, checked again by `recheckAccess`. */
  token: string;
  /** The jobs it follows (set on connection). */
  following: Map<number, Follower>;
}

/** How often followers' access is decided again by default. */
export const UI_ACCESS_RECHECK_MS = 15_000;

interface Follower {
  socket: Socket;
  feed: JobFeed;
  /** Until it joins the room: the highest seq it has (null until its follow request is resolved). */
  cursor: number | null;
  reading: boolean;
  inRoom: boolean;
}

interface JobFeed {
  jobId: number;
  room: string;
  /** Everything up to this seq has been broadcast to the room (or predates the feed); null until read. */
  lastSeq: number | null;
  ready: Promise<void>;
  reading: boolean;
  again: boolean;
  followers: Set<Follower>;
}

/** What the hub did, for the benchmark and the metrics (reads of output per stored batch). */
export interface UiHubStats {
  /** Batches stored on this node and broadcast without a read. */
  directBroadcasts: number;
  feedReads: number;
  catchUpReads: number;
  broadcasts: number;
}

export class UiHub {
  /** jobId -> the job's feed on this node. */
  private readonly feeds = new Map<number, JobFeed>();
  private namespace: Namespace | null = null;
  readonly stats: UiHubStats = { directBroadcasts: 0, feedReads: 0, catchUpReads: 0, broadcasts: 0 };

  private recheckTimer: NodeJS.Timeout | null = null;
  private rechecking = false;

  constructor(
    private readonly bus: JobUpdateBus,
    /** Who the app is, for refusing a cross-site page's socket that rides on the session cookie. */
    private readonly sameOrigin: SameOriginOptions = { trustedProxies: 0 },
    private readonly recheckMs = UI_ACCESS_RECHECK_MS,
  ) {
    bus.subscribe((update) => this.onUpdate(update));
  }

  attach(io: Server): void {
    const namespace = io.of(UI_NAMESPACE);
    this.namespace = namespace;
    namespace.use((socket, next) => {
      const auth = socket.handshake.auth as { token?: unknown } | undefined;
      const byCookie = typeof auth?.token !== "string";
      const token = byCookie ? readCookie(socket.handshake.headers.cookie, SESSION_COOKIE) : (auth.token as string);
      if (!token) return next(new Error("not logged in"));
      // Cross-site WebSocket hijacking: another site's page opening a socket with our cookie.
      const crossSite = byCookie ? foreignOrigin(socket.handshake.headers, this.sameOrigin) : null;
      if (crossSite) return next(new Error(`cross-site socket refused (${crossSite})`));
      void credentialForToken(token).then(
        (credential) => {
          if (!credential) return next(new Error("session expired: log in again"));
          // The socket only follows jobs (reading), which every token scope allows
          // (server/access/token-scopes.ts): a `read` token may follow, and nothing here writes.
          if (!scopeAllows(effectiveScope(credential.scope), "GET", UI_NAMESPACE)) return next(new Error("token scope refused"));
          const { user } = credential;
          Object.assign(socket.data as SocketData, { user, token, following: new Map() } satisfies SocketData);
          next();
        },
        () => next(new Error("internal error")),
      );
    });
    this.recheckTimer = setInterval(() => void this.recheckAccess(), this.recheckMs);
    this.recheckTimer.unref();
    namespace.on("connection", (socket) => {
      const mine = (socket.data as SocketData).following;
      // The latest follow request per job while its access check runs: an unfollow or a newer
      // follow in the meantime wins.
      const asked = new Map<number, object>();
      const { user } = socket.data as SocketData;
      socket.on(UiEvents.follow, (payload: unknown) => {
        const parsed = jobFollowSchema.safeParse(payload);
        if (!parsed.success) return;
        const { jobId, after, afterLine } = parsed.data;
        const request = {};
        asked.set(jobId, request);
        // Only a job the user may see (server/access/policy.ts); any other is followed as one
        // that does not exist: nothing is ever sent.
        void viewerOf(user)
          .then((viewer) => findVisibleJob(viewer, jobId))
          .then(
            (visible) => {
              if (asked.get(jobId) !== request || socket.disconnected) return;
              asked.delete(jobId);
              if (!visible) return;
              this.remove(mine.get(jobId));
              const feed = this.feedFor(jobId);
              const follower: Follower = { socket, feed, cursor: null, reading: false, inRoom: false };
              mine.set(jobId, follower);
              feed.followers.add(follower);
              void this.startFollowing(follower, after, afterLine);
              void this.sendStatus(feed, [follower]);
            },
            (error: unknown) => log().error({ err: error, jobId }, "checking a follower's access failed"),
          );
      });
      socket.on(UiEvents.unfollow, (payload: unknown) => {
        const parsed = jobUnfollowSchema.safeParse(payload);
        if (!parsed.success) return;
        asked.delete(parsed.data.jobId);
        this.remove(mine.get(parsed.data.jobId));
        mine.delete(parsed.data.jobId);
      });
      socket.on("disconnect", () => {
        asked.clear();
        for (const follower of mine.values()) this.remove(follower);
        mine.clear();
      });
    });
  }

  /**
   * Tells every app node (this one included) that a job has news. A batch stored on this node
   * goes to this node's followers straight away (no read back); the news that travels carries
   * its highest seq, so no node reads for followers that already have it.
   */
  publish(update: JobUpdate): void {
    if (update.stored) this.deliverStored(update.jobId, update.stored);
    this.bus.publish(update);
  }

  /** Broadcasts a batch this node just stored, if it follows on from what the job's room has; else the feed reads. */
  private deliverStored(jobId: number, stored: StoredOutput): void {
    const feed = this.feeds.get(jobId);
    if (!feed) return;
    if (feed.reading || feed.lastSeq === null || feed.lastSeq !== stored.fromSeq - 1) {
      this.pumpFeed(feed);
      return;
    }
    feed.lastSeq = stored.toSeq;
    this.stats.directBroadcasts++;
    if (stored.chunks.length > 0) {
      this.namespace?.to(feed.room).emit(UiEvents.chunks, { v: UI_CONTRACT_VERSION, jobId, chunks: stored.chunks } satisfies JobChunks);
      this.stats.broadcasts++;
    }
    for (const follower of feed.followers) if (!follower.inRoom) this.catchUp(follower);
  }

  /**
   * Decides again whether each socket's session still holds and each follower may still see
   * its job: an ended session is disconnected (the browser's reconnect then asks for a new
   * log-in), a job no longer visible is unfollowed without a word, as at follow time.
   */
  async recheckAccess(): Promise<{ disconnected: number; unfollowed: number }> {
    const done = { disconnected: 0, unfollowed: 0 };
    if (!this.namespace || this.rechecking) return done;
    this.rechecking = true;
    try {
      const users = new Map<string, Promise<PublicUser | null>>();
      const viewers = new Map<PublicUser["id"], ReturnType<typeof viewerOf>>();
      const visible = new Map<string, Promise<boolean>>();
      for (const socket of [...this.namespace.sockets.values()]) {
        const data = socket.data as Partial<SocketData>;
        if (!data.token || !data.following) continue;
        const token = data.token;
        if (!users.has(token)) users.set(token, userForToken(token));
        const user = await users.get(token)!;
        if (!user) {
          socket.disconnect(true);
          done.disconnected++;
          continue;
        }
        if (!viewers.has(user.id)) viewers.set(user.id, viewerOf(user));
        const viewer = await viewers.get(user.id)!;
        for (const [jobId, follower] of [...data.following]) {
          const key = `${user.id}:${jobId}`;
          if (!visible.has(key))
            visible.set(
              key,
              findVisibleJob(viewer, jobId).then((job) => job !== null),
            );
          if (await visible.get(key)!) continue;
          this.remove(follower);
          data.following.delete(jobId);
          done.unfollowed++;
        }
      }
      if (done.disconnected + done.unfollowed > 0) log().info(done, "followers' access checked again: some ended");
    } catch (error) {
      log().error({ err: error }, "checking followers' access again failed");
    } finally {
      this.rechecking = false;
    }
    return done;
  }

  close(): void {
    if (this.recheckTimer) clearInterval(this.recheckTimer);
    this.recheckTimer = null;
  }

  /** Browser sockets on this node's /ui namespace, and the jobs they follow (one per socket and job). */
  connections(): { connections: number; followers: number } {
    let followers = 0;
    for (const feed of this.feeds.values()) followers += feed.followers.size;
    return { connections: this.namespace?.sockets.size ?? 0, followers };
  }

  private feedFor(jobId: number): JobFeed {
    const existing = this.feeds.get(jobId);
    if (existing) return existing;
    const feed: JobFeed = {
      jobId,
      room: `job:${jobId}`,
      lastSeq: null,
      ready: Promise.resolve(),
      reading: false,
      again: false,
      followers: new Set(),
    };
    feed.ready = (async () => {
      await ensureIndexed(jobId).catch(() => undefined);
      const state = await findOutputState(jobId);
      // Set once: a broadcast cannot have happened before (the feed pumps only once ready).
      feed.lastSeq ??= state?.lastSeq ?? 0;
    })();
    this.feeds.set(jobId, feed);
    return feed;
  }

  private onUpdate(update: JobUpdate): void {
    const feed = this.feeds.get(update.jobId);
    if (!feed) return;
    // Already broadcast (this node stored it, or read it for an earlier notice): nothing to read.
    if (update.output && !(update.seq !== undefined && feed.lastSeq !== null && feed.lastSeq >= update.seq)) this.pumpFeed(feed);
    if (update.status) void this.sendStatus(feed, [...feed.followers]);
  }

  /** Reads what is new for the job once and broadcasts it to every follower in the room. */
  private pumpFeed(feed: JobFeed): void {
    if (feed.reading) {
      feed.again = true;
      return;
    }
    feed.reading = true;
    void (async () => {
      try {
        await feed.ready;
        do {
          feed.again = false;
          for (;;) {
            const chunks = await listOutput(feed.jobId, feed.lastSeq!, PAGE);
            this.stats.feedReads++;
            if (chunks.length === 0) break;
            feed.lastSeq = chunks[chunks.length - 1]!.seq;
            this.namespace?.to(feed.room).emit(UiEvents.chunks, { v: UI_CONTRACT_VERSION, jobId: feed.jobId, chunks } satisfies JobChunks);
            this.stats.broadcasts++;
            // Followers still catching up read up to the new lastSeq on their next turn.
            for (const follower of feed.followers) if (!follower.inRoom) this.catchUp(follower);
            if (chunks.length < PAGE) break;
          }
        } while (feed.again && this.feeds.get(feed.jobId) === feed);
      } finally {
        feed.reading = false;
      }
    })().catch((error: unknown) => log().error({ err: error, jobId: feed.jobId }, `reading the output of job ${feed.jobId} failed`));
  }

  private async startFollowing(follower: Follower, after: number, afterLine: number | undefined): Promise<void> {
    try {
      await follower.feed.ready;
      follower.cursor = afterLine === undefined ? after : await seqCursorForLine(follower.feed.jobId, afterLine);
      this.catchUp(follower);
    } catch (error) {
      log().error({ err: error, jobId: follower.feed.jobId }, `following job ${follower.feed.jobId} failed`);
    }
  }

  /**
   * Sends a new follower what the room has already had, from its cursor up to the feed's
   * lastSeq, then puts it in the room: checked and joined in one synchronous step, so a
   * broadcast cannot fall between its catch-up and its membership.
   */
  private catchUp(follower: Follower): void {
    // A loop already running reads up to the feed's latest lastSeq on its next turn.
    if (follower.inRoom || follower.reading || follower.cursor === null) return;
    follower.reading = true;
    const { feed, socket } = follower;
    void (async () => {
      try {
        for (;;) {
          if (!socket.connected || !feed.followers.has(follower)) return;
          const upTo = feed.lastSeq ?? 0;
          const cursor = follower.cursor!;
          if (cursor >= upTo) {
            void socket.join(feed.room);
            follower.inRoom = true;
            return;
          }
          const chunks = await listOutput(feed.jobId, cursor, PAGE, upTo);
          this.stats.catchUpReads++;
          if (chunks.length > 0) socket.emit(UiEvents.chunks, { v: UI_CONTRACT_VERSION, jobId: feed.jobId, chunks } satisfies JobChunks);
          // A short page is everything up to upTo (the other items there are not output).
          follower.cursor = chunks.length < PAGE ? upTo : chunks[chunks.length - 1]!.seq;
        }
      } finally {
        follower.reading = false;
      }
    })().catch((error: unknown) => log().error({ err: error, jobId: feed.jobId }, `sending output of job ${feed.jobId} failed`));
  }

  private async sendStatus(feed: JobFeed, to: Follower[]): Promise<void> {
    try {
      const job = await getJobView(feed.jobId);
      if (!job) return;
      const message = { v: UI_CONTRACT_VERSION, jobId: feed.jobId, job } satisfies JobStatusMessage;
      for (const follower of to) follower.socket.emit(UiEvents.status, message);
    } catch (error) {
      log().error({ err: error, jobId: feed.jobId }, `sending the status of job ${feed.jobId} failed`);
    }
  }

  private remove(follower: Follower | undefined): void {
    if (!follower) return;
    const { feed } = follower;
    feed.followers.delete(follower);
    if (follower.inRoom) void follower.socket.leave(feed.room);
    follower.inRoom = false;
    if (feed.followers.size === 0 && this.feeds.get(feed.jobId) === feed) this.feeds.delete(feed.jobId);
  }
}
