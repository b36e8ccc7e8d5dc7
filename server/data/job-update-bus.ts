/**
 * The job-update bus (server/hub/job-updates.ts) over the database the app runs on. With
 * PostgreSQL several app nodes may serve one job's followers, so news goes through
 * LISTEN/NOTIFY; the embedded SQLite means a single node, where an in-process emitter is enough.
 */
import { EventEmitter } from "node:events";
import pg from "pg";
import { providerFromUrl } from "./database-url";
import type { JobUpdate, JobUpdateBus } from "../hub/job-updates";
import { loggerFor } from "../logging/logger";

const log = loggerFor({ component: "job-updates" });

const CHANNEL = "playform_job_updates";

/** The bus for this database, started (listening) when it needs to be. */
export async function openJobUpdateBus(databaseUrl: string): Promise<JobUpdateBus> {
  if (providerFromUrl(databaseUrl) !== "postgresql") return new LocalJobUpdateBus();
  const bus = new PostgresJobUpdateBus(databaseUrl);
  await bus.start();
  return bus;
}

export class LocalJobUpdateBus implements JobUpdateBus {
  private readonly emitter = new EventEmitter();

  publish(update: JobUpdate): void {
    // The same shape as over PostgreSQL: the batch is for the storing node's own hub only.
    const { stored: _stored, ...news } = update;
    this.emitter.emit("update", news);
  }

  subscribe(listener: (update: JobUpdate) => void): void {
    this.emitter.on("update", listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

export class PostgresJobUpdateBus implements JobUpdateBus {
  private readonly listeners: ((update: JobUpdate) => void)[] = [];
  private listenClient: pg.Client | null = null;
  private readonly pool: pg.Pool;
  private closed = false;

  constructor(private readonly url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 2 });
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      const update = decode(message.payload);
      if (update) for (const listener of this.listeners) listener(update);
    });
    // A lost LISTEN connection would silently stop live updates on this node: reconnect.
    client.on("error", (error) => {
      log().error(`LISTEN connection failed: ${error.message}`);
      if (!this.closed) setTimeout(() => void this.start().catch(() => undefined), 2_000);
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.listenClient = client;
  }

  publish(update: JobUpdate): void {
    this.pool.query("SELECT pg_notify($1, $2)", [CHANNEL, encode(update)]).catch((error: unknown) => {
      log().error({ err: error }, "NOTIFY failed");
    });
  }

  subscribe(listener: (update: JobUpdate) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listenClient?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}

/** `jobId:OS[:seq]` (output and status flags; the highest seq stored). The batch itself never travels. */
function encode(update: JobUpdate): string {
  return `${update.jobId}:${update.output ? 1 : 0}${update.status ? 1 : 0}${update.seq !== undefined ? `:${update.seq}` : ""}`;
}

function decode(payload: string): JobUpdate | null {
  const match = /^(\d+):([01])([01])(?::(\d+))?$/.exec(payload);
  if (!match) return null;
  const update: JobUpdate = { jobId: Number(match[1]), output: match[2] === "1", status: match[3] === "1" };
  if (match[4] !== undefined) update.seq = Number(match[4]);
  return update;
}
