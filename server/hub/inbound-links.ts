/**
 * Inbound runners (RTE_MODE=inbound): this app node connects to each approved runner's address
 * with a socket.io client, at `INBOUND_SOCKET_PATH`, and hands the socket to the hub's per-link
 * logic once the runner proved its token (`rte:hello`), so dispatch, items, acks, files,
 * heartbeat, cancel and drain are the outbound code.
 *
 * Over https the runner's certificate is checked against the fingerprint the app pinned at
 * approval before anything is sent: the TLS connection is made here, its peer certificate's
 * SHA-256 compared, and only a matching connection is handed to the HTTP request that opens the
 * websocket (an agent's asynchronous createConnection). The chain is not verified (runners
 * usually present a self-signed certificate): the pin is the trust. Plain http only when an
 * admin allowed that runner without TLS. Every failure is recorded on the runner (shown on the
 * Runners page) and retried with a growing delay.
 *
 * With several app nodes exactly one connects to each runner: see InboundLinks and its lease.
 */
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import { io, type Socket } from "socket.io-client";
import { listLinkLeases, releaseLinkLeases, renewLinkLeases, takeLinkLease } from "../data/link-leases";
import { findInboundRunner, recordLinkOutcome, type InboundRunner } from "../data/runners";
import {
  CONTRACT_VERSION,
  INBOUND_SOCKET_PATH,
  RTE_NAMESPACE,
  RteEvents,
  type HelloAnswer,
  type InboundAuth,
} from "../protocol/rte-messages";
import { makeInboundProof } from "../security/inbound-proof";
import type { LinkSocket, RteHub } from "./rte-hub";
import { loggerFor } from "../logging/logger";

const log = loggerFor({ component: "inbound" });

/** How long a holder's lease stands still before another node takes its links over. */
export const DEFAULT_LEASE_MS = 15_000;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;

/** Why the app cannot connect to a runner as configured, or null. */
export function configurationProblem(runner: InboundRunner): string | null {
  if (!runner.address) return "the runner sent no address (RTE_ADDRESS) to connect to";
  let url: URL;
  try {
    url = new URL(runner.address);
  } catch {
    return `the runner's address ${JSON.stringify(runner.address)} is not a URL`;
  }
  if (url.protocol === "http:" && !runner.inboundNoTls) {
    return `the runner's address ${runner.address} is plain http: the app connects only after an admin allows this runner without TLS`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `the runner's address ${runner.address} is neither https nor http`;
  return null;
}

/**
 * An https agent whose connections are handed over only once the peer's certificate is the
 * pinned one: nothing (not even the websocket upgrade request) is written before the check.
 */
class PinnedAgent extends https.Agent {
  constructor(
    /** Null: nothing pinned (the join request named no fingerprint): every certificate is refused, and what it is recorded. */
    private readonly pinned: string | null,
    private readonly onPeer: (presented: string | null, refusal: string | null) => void,
  ) {
    super({ keepAlive: false });
  }

  override createConnection(
    options: https.RequestOptions,
    callback?: (error: Error | null, socket: Duplex) => void,
  ): Duplex | null | undefined {
    const host = options.host ?? "localhost";
    const socket = tls.connect({
      host,
      port: Number(options.port),
      ...(net.isIP(host) ? {} : { servername: host }),
      // The chain is not verified: the fingerprint comparison below is, before any byte is sent.
      rejectUnauthorized: false,
      ALPNProtocols: ["http/1.1"],
    });
    let done = false;
    const finish = (error: Error | null) => {
      if (done) return;
      done = true;
      if (error) socket.destroy();
      callback?.(error, socket);
    };
    socket.once("secureConnect", () => {
      const presented = socket.getPeerCertificate()?.fingerprint256 || null;
      if (!presented || presented !== this.pinned) {
        const refusal = this.pinned
          ? `the runner presented a certificate with SHA-256 ${presented ?? "(none)"}, not the pinned ${this.pinned}: refused. If its certificate changed on purpose, compare the fingerprint with the runner's log and re-pin it`
          : `no certificate is pinned for this runner (its join request named none); it presents SHA-256 ${presented ?? "(none)"}: compare it with the runner's log and re-pin it`;
        this.onPeer(presented, refusal);
        finish(new Error(refusal));
        return;
      }
      this.onPeer(presented, null);
      finish(null);
    });
    socket.once("error", (error) => {
      // The websocket layer reports only "websocket error": keep the cause (refused, unreachable, TLS alert).
      if (!done) this.onPeer(null, error.message);
      finish(error);
    });
    // Handed over through the callback once checked (Node's agents accept either way).
    return undefined;
  }
}

class InboundConnector {
  private socket: Socket | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private delay = FIRST_RETRY_MS;
  private stopped = false;
  private connecting = false;

  constructor(
    private readonly hub: RteHub,
    readonly runnerId: string,
    /** The runner's link settings this connector was (re)started with (see listLinkLeases). */
    public settings: string,
    private readonly onGone: () => void,
  ) {}

  start(): void {
    void this.connect();
  }

  /** Connect anew now (settings changed), dropping the current link and any wait. */
  refresh(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.delay = FIRST_RETRY_MS;
    const old = this.socket;
    this.socket = null;
    old?.disconnect();
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.socket?.disconnect();
    this.socket = null;
  }

  private retry(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = this.delay;
    this.delay = Math.min(MAX_RETRY_MS, this.delay * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.connecting || this.socket) return;
    this.connecting = true;
    try {
      const runner = await findInboundRunner(this.runnerId);
      if (!runner || runner.status !== "approved" || runner.mode !== "inbound" || !runner.tokenHash) {
        this.stop();
        this.onGone();
        return;
      }
      const problem = configurationProblem(runner);
      if (problem) {
        await this.fail(runner, problem);
        return;
      }
      this.open(runner, runner.tokenHash);
    } catch (error) {
      log().error({ err: error, runner: this.runnerId }, `runner ${this.runnerId}: cannot connect`);
      this.retry();
    } finally {
      this.connecting = false;
    }
  }

  private async fail(runner: { id: string; name: string }, reason: string, presented?: string | null): Promise<void> {
    log().warn({ runner: runner.name }, `runner ${runner.name}: ${reason}`);
    await recordLinkOutcome(runner.id, reason, presented).catch((error: unknown) =>
      log().error({ err: error, runner: runner.name }, "recording a link error failed"),
    );
    this.retry();
  }

  private open(runner: InboundRunner, tokenHash: string): void {
    const address = new URL(runner.address!);
    const secure = address.protocol === "https:";
    let presented: string | null = null;
    let refusal: string | null = null;
    const agent = secure
      ? new PinnedAgent(runner.certFingerprint, (fingerprint, why) => {
          presented = fingerprint;
          refusal = why;
        })
      : undefined;
    const auth: InboundAuth = { v: CONTRACT_VERSION, runner: runner.name, ...makeInboundProof(tokenHash, runner.name) };
    const socket = io(new URL(RTE_NAMESPACE, address).toString(), {
      path: INBOUND_SOCKET_PATH,
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
      timeout: CONNECT_TIMEOUT_MS,
      auth,
      ...(agent ? { agent: agent as unknown as string, rejectUnauthorized: false } : {}),
    });
    this.socket = socket;
    let settled = false;
    const lost = (reason: string) => {
      if (this.socket === socket) this.socket = null;
      socket.removeAllListeners();
      socket.disconnect();
      if (!settled) {
        settled = true;
        void this.fail(runner, reason, presented);
      } else this.retry();
    };
    socket.on("connect_error", (error: Error) => {
      // A certificate refusal is the whole story; a transport error is the cause under socket.io's message.
      const cause = refusal !== null && presented === null ? `cannot connect to ${runner.address}: ${refusal}` : refusal;
      lost(cause ?? `cannot connect to ${runner.address}: ${error.message}`);
    });
    socket.on(RteEvents.hello, (hello: unknown, ack?: (answer: HelloAnswer) => void) => {
      void this.hub.attachInbound(socket as unknown as LinkSocket, hello, runner.id).then(
        async (answer) => {
          ack?.(answer);
          if (!answer.ok) {
            lost(`the runner at ${runner.address} was refused: ${answer.reason}`);
            return;
          }
          settled = true;
          this.delay = FIRST_RETRY_MS;
          log().info(
            { runner: runner.name },
            `connected to runner ${runner.name} at ${runner.address}${secure ? ` (certificate ${presented})` : " (no TLS, allowed by an admin)"}`,
          );
          await recordLinkOutcome(runner.id, null, presented);
        },
        (error: unknown) => {
          log().error({ err: error, runner: runner.name }, `runner ${runner.name}: setting up the link failed`);
          lost("setting up the link failed on the app");
        },
      );
    });
    socket.on("disconnect", (reason: string) => {
      if (this.socket !== socket) return;
      log().info({ runner: runner.name }, `link to runner ${runner.name} closed (${reason}); reconnecting`);
      if (settled) {
        this.socket = null;
        socket.removeAllListeners();
        this.retry();
      } else lost(`the runner closed the link before it was set up (${reason})`);
    });
  }
}

export interface InboundLinksOptions {
  /** This app node (PLAYFORM_NODE_ID): the holder named in the leases it takes. */
  nodeId: string;
  /** How long a holder's lease must stand still before another node takes the link (default 15 s). */
  leaseMs?: number;
}

interface Observation {
  holder: string | null;
  epoch: number;
  /** When this node first saw that holder and epoch, on its own clock. */
  since: number;
}

/**
 * This node's links to the inbound runners. With several app nodes exactly one holds each link,
 * through a lease in the database (server/data/link-leases.ts): every tick (a fifth of the
 * lease time) the holder renews all its leases in one write; a free link is taken at once; a
 * link whose holder's epoch stood still for most of the lease time (the holder died) is taken
 * over, so the link moves within the lease time. A holder that could not renew for most of the
 * lease time drops its links before anyone can take them over, so two nodes never both think
 * they hold one. A node that stops releases its links.
 */
export class InboundLinks {
  private readonly connectors = new Map<string, InboundConnector>();
  private readonly observed = new Map<string, Observation>();
  private readonly nodeId: string;
  private readonly leaseMs: number;
  private readonly tickMs: number;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  /** A tick was asked for while one ran: run another right after. */
  private tickAgain = false;
  /** When this node's leases were last renewed (or taken), on its own clock. */
  private renewedAt = 0;

  constructor(
    private readonly hub: RteHub,
    options: InboundLinksOptions,
  ) {
    this.nodeId = options.nodeId;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.tickMs = Math.max(200, Math.round(this.leaseMs / 5));
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref();
    this.tick();
  }

  /** Drops every link and releases this node's leases, so another node takes them at once. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    this.dropAll();
    await releaseLinkLeases(this.nodeId).catch((error: unknown) => log().error({ err: error }, "releasing the inbound link leases failed"));
  }

  /**
   * An admin changed the runner (approved, re-pinned, TLS allowed off): look now rather than at
   * the next tick. The holder reconnects when the link's settings changed; with several nodes
   * the holder may be another one, which sees the change at its next tick.
   */
  refresh(_runnerId: string): void {
    this.tick();
  }

  /** The runners this node holds the link to. */
  held(): string[] {
    return [...this.connectors.keys()];
  }

  private tick(): void {
    if (!this.timer) return;
    if (this.ticking) {
      this.tickAgain = true;
      // The database hangs rather than fails: the same fence.
      this.fenceIfStale();
      return;
    }
    this.ticking = this.sync()
      .catch((error: unknown) => {
        log().error({ err: error }, "keeping the inbound links failed");
        this.fenceIfStale();
      })
      .finally(() => {
        this.ticking = null;
        if (this.tickAgain) {
          this.tickAgain = false;
          this.tick();
        }
      });
  }

  private async sync(): Promise<void> {
    const now = Date.now();
    await renewLinkLeases(this.nodeId);
    this.renewedAt = now;
    const leases = await listLinkLeases();
    const approved = new Set(leases.map((lease) => lease.runnerId));
    for (const lease of leases) {
      if (!this.timer) return;
      if (lease.holder === this.nodeId) {
        this.observed.delete(lease.runnerId);
        this.connect(lease.runnerId, lease.settings);
        continue;
      }
      // Another node holds it (or took it over while this one was away): not this node's link.
      if (lease.holder !== null) this.disconnect(lease.runnerId, lease.holder);
      const seen = this.observed.get(lease.runnerId);
      if (lease.holder !== null && (!seen || seen.holder !== lease.holder || seen.epoch !== lease.epoch)) {
        this.observed.set(lease.runnerId, { holder: lease.holder, epoch: lease.epoch, since: now });
        continue;
      }
      // Free, or its holder has not renewed for the lease time: take it (or lose the race).
      if (lease.holder !== null && now - seen!.since < this.leaseMs - this.tickMs) continue;
      if (await takeLinkLease(this.nodeId, lease)) {
        this.observed.delete(lease.runnerId);
        if (lease.holder !== null) {
          log().warn(
            { runner: lease.runnerId, from: lease.holder },
            `took over the link to runner ${lease.runnerId} from node ${lease.holder}, silent for ${Math.round((now - seen!.since) / 1000)} s`,
          );
        }
        this.connect(lease.runnerId, lease.settings);
      }
    }
    // Runners no longer approved (revoked on any node): drop their links.
    for (const runnerId of this.connectors.keys()) if (!approved.has(runnerId)) this.disconnect(runnerId, null);
    for (const runnerId of this.observed.keys()) if (!approved.has(runnerId)) this.observed.delete(runnerId);
  }

  /** Without a renewal for most of the lease time another node may take over: drop first. */
  private fenceIfStale(): void {
    if (this.connectors.size === 0 || Date.now() - this.renewedAt < this.leaseMs - 2 * this.tickMs) return;
    log().warn(
      `could not renew the inbound link leases for ${Math.round((Date.now() - this.renewedAt) / 1000)} s: dropping ${this.connectors.size} link(s) before another node takes them over`,
    );
    this.dropAll();
  }

  private connect(runnerId: string, settings: string): void {
    const current = this.connectors.get(runnerId);
    if (current) {
      // Changed on another node (an admin re-pinned there, say): reconnect now, not at the next retry.
      if (current.settings !== settings) {
        current.settings = settings;
        current.refresh();
      }
      return;
    }
    const connector = new InboundConnector(this.hub, runnerId, settings, () => {
      if (this.connectors.get(runnerId) === connector) this.connectors.delete(runnerId);
    });
    this.connectors.set(runnerId, connector);
    connector.start();
  }

  private disconnect(runnerId: string, holder: string | null): void {
    const connector = this.connectors.get(runnerId);
    if (!connector) return;
    log().warn(
      { runner: runnerId },
      holder
        ? `node ${holder} holds the link to runner ${runnerId} now: dropping this node's`
        : `runner ${runnerId} is no longer approved: dropping its link`,
    );
    connector.stop();
    this.connectors.delete(runnerId);
  }

  private dropAll(): void {
    for (const connector of this.connectors.values()) connector.stop();
    this.connectors.clear();
  }
}
