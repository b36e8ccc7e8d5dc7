/**
 * "Job N has new output / a new status", told to every app node. The node that stores an
 * RTE's items is often not the node a browser follows the job on, so the news travels through
 * the database (server/data/job-update-bus.ts: PostgreSQL LISTEN/NOTIFY with several nodes, an
 * in-process emitter with the embedded SQLite). Only the job id travels; each node reads what
 * is new from the database, which keeps the order and the exactly-once property in one place.
 */
import type { OutputChunk } from "../protocol/ui-messages";

export interface JobUpdate {
  jobId: number;
  output: boolean;
  status: boolean;
  /** With output: the highest seq stored. A node whose followers already have it skips the read. */
  seq?: number;
  /**
   * With output, on the node that stored it only (never sent between nodes): the batch itself,
   * so that node's followers get it without reading it back from the database.
   */
  stored?: StoredOutput;
}

/** A batch just stored: the consecutive seqs it filled and its output chunks. */
export interface StoredOutput {
  fromSeq: number;
  toSeq: number;
  chunks: OutputChunk[];
}

export interface JobUpdateBus {
  publish(update: JobUpdate): void;
  subscribe(listener: (update: JobUpdate) => void): void;
  close(): Promise<void>;
}

/** How domain code tells every app node that a job has news (server/index.ts wires it to the bus). */
export type JobUpdatePublisher = (update: JobUpdate) => void;
