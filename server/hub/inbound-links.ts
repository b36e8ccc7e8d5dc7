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
 * One app node: every node connects to every inbound runner (several nodes need a lease per
 * link, not built yet).
 */
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import { io, type Socket } from "socket.io-client";
import { findInboundRunner, listInboundRunners, recordLinkOutcome, type InboundRunner } from "../data/runners";
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

const SYNC_MS = 5_000;
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

/** This node's connections to the inbound runners, kept in line with the database every few seconds. */
export class InboundLinks {
  private readonly connectors = new Map<string, InboundConnector>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly hub: RteHub) {}

  start(): void {
    void this.sync();
    this.timer = setInterval(() => void this.sync(), SYNC_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    for (const connector of this.connectors.values()) connector.stop();
    this.connectors.clear();
  }

  /** An admin changed the runner (approved, re-pinned, TLS allowed off): connect now. */
  refresh(runnerId: string): void {
    const connector = this.connectors.get(runnerId);
    if (connector) connector.refresh();
    else void this.sync();
  }

  private async sync(): Promise<void> {
    let runners: InboundRunner[];
    try {
      runners = await listInboundRunners();
    } catch (error) {
      log().error({ err: error }, "listing inbound runners failed");
      return;
    }
    for (const runner of runners) {
      if (this.connectors.has(runner.id) || !this.timer) continue;
      const connector = new InboundConnector(this.hub, runner.id, () => this.connectors.delete(runner.id));
      this.connectors.set(runner.id, connector);
      connector.start();
    }
  }
}
