/**
 * "Job N has new output / a new status", told to every app node. The node that stores an
 * RTE's items is often not the node a browser follows the job on, so the news travels through
 * the database: PostgreSQL LISTEN/NOTIFY with several nodes, an in-process emitter with the
 * embedded SQLite (one node). Only the job id travels; each node reads what is new from the
 * database, which keeps the order and the exactly-once property in one place.
 */
import { EventEmitter } from "node:events";
import pg from "pg";

export interface JobUpdate {
  jobId: number;
  output: boolean;
  status: boolean;
}

export interface JobUpdateBus {
  publish(update: JobUpdate): void;
  subscribe(listener: (update: JobUpdate) => void): void;
  close(): Promise<void>;
}

const CHANNEL = "playform_job_updates";

export class LocalJobUpdateBus implements JobUpdateBus {
  private readonly emitter = new EventEmitter();

  publish(update: JobUpdate): void {
    this.emitter.emit("update", update);
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
      console.error("[job-updates] LISTEN connection failed:", error.message);
      if (!this.closed) setTimeout(() => void this.start().catch(() => undefined), 2_000);
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.listenClient = client;
  }

  publish(update: JobUpdate): void {
    this.pool.query("SELECT pg_notify($1, $2)", [CHANNEL, encode(update)]).catch((error: unknown) => {
      console.error("[job-updates] NOTIFY failed:", error);
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

function encode(update: JobUpdate): string {
  return `${update.jobId}:${update.output ? 1 : 0}${update.status ? 1 : 0}`;
}

function decode(payload: string): JobUpdate | null {
  const match = /^(\d+):([01])([01])$/.exec(payload);
  if (!match) return null;
  return { jobId: Number(match[1]), output: match[2] === "1", status: match[3] === "1" };
}
