/**
 * The on-disk spool: every item of a job is written here before it is sent, and stays until
 * the app acknowledges it. A dropped connection or a restarted RTE therefore loses nothing:
 * on (re)connect everything above the acknowledged watermark is sent again, and the app skips
 * what it already stored.
 *
 * Layout: <spool>/<jobId>/items.jsonl (append-only, fsynced per batch) and
 * <spool>/<jobId>/acked (the highest sequence number acknowledged; all below it are too).
 */
import fs from "node:fs";
import path from "node:path";
import type { JobItem, UnnumberedItem } from "../protocol/rte-messages";
import { PRIVATE_FILE_MODE, ensurePrivateDir, makePrivate } from "./private-fs";

interface JobSpool {
  nextSeq: number;
  acked: number;
  pending: JobItem[];
  ended: boolean;
  /** Left by a previous run of this RTE: its playbook is gone, only delivery remains. */
  recovered: boolean;
}

export class Spool {
  private readonly jobs = new Map<number, JobSpool>();

  constructor(private readonly dir: string) {
    ensurePrivateDir(dir);
  }

  /** Loads what a previous run of this RTE left behind. */
  recover(): number[] {
    for (const entry of fs.readdirSync(this.dir)) {
      const jobId = Number(entry);
      if (!Number.isInteger(jobId) || jobId <= 0) continue;
      // Spooled by an older version with the default modes: tighten before anything else.
      ensurePrivateDir(this.jobDir(jobId));
      for (const file of ["items.jsonl", "acked"]) makePrivate(path.join(this.jobDir(jobId), file));
      const items = this.readItems(jobId);
      const acked = this.readAcked(jobId);
      const pending = items.filter((i) => i.seq > acked);
      const nextSeq = items.reduce((max, i) => Math.max(max, i.seq), 0) + 1;
      if (pending.length === 0) {
        // Everything was delivered: nothing to resend, and the playbook did not survive.
        this.drop(jobId);
        continue;
      }
      this.jobs.set(jobId, { nextSeq, acked, pending, ended: items.some((i) => i.kind === "end"), recovered: true });
    }
    return [...this.jobs.keys()];
  }

  open(jobId: number): void {
    if (this.jobs.has(jobId)) return;
    ensurePrivateDir(this.jobDir(jobId));
    this.jobs.set(jobId, { nextSeq: 1, acked: 0, pending: [], ended: false, recovered: false });
  }

  /** Numbers the items, writes them durably, and keeps them pending until acknowledged. */
  append(jobId: number, items: UnnumberedItem[]): JobItem[] {
    const job = this.jobs.get(jobId);
    if (!job) throw new Error(`job ${jobId} has no spool`);
    const numbered = items.map((item) => ({ ...item, seq: job.nextSeq++ }) as JobItem);
    if (numbered.length === 0) return numbered;
    const file = path.join(this.jobDir(jobId), "items.jsonl");
    const fd = fs.openSync(file, "a", PRIVATE_FILE_MODE);
    try {
      fs.writeSync(fd, numbered.map((i) => JSON.stringify(i)).join("\n") + "\n");
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    job.pending.push(...numbered);
    if (numbered.some((i) => i.kind === "end")) job.ended = true;
    return numbered;
  }

  /** Marks sequence numbers as stored by the app; deletes the job's spool once its end is. */
  acknowledge(jobId: number, seqs: number[]): void {
    const job = this.jobs.get(jobId);
    if (!job) return;
    const done = new Set(seqs);
    job.pending = job.pending.filter((i) => !done.has(i.seq));
    const watermark = job.pending.length > 0 ? job.pending[0]!.seq - 1 : job.nextSeq - 1;
    if (watermark > job.acked) {
      job.acked = watermark;
      fs.writeFileSync(path.join(this.jobDir(jobId), "acked"), String(watermark), { mode: PRIVATE_FILE_MODE });
    }
    if ((job.ended || job.recovered) && job.pending.length === 0) this.drop(jobId);
  }

  /** Forgets a job entirely (its end was stored, or the app says it is not ours). */
  drop(jobId: number): void {
    this.jobs.delete(jobId);
    fs.rmSync(this.jobDir(jobId), { recursive: true, force: true });
  }

  pending(jobId: number): JobItem[] {
    return this.jobs.get(jobId)?.pending ?? [];
  }

  /**
   * The next items to send: the oldest pending ones, at most `maxItems` and, as JSON, at most
   * `maxBytes` (always at least one). The app drops a socket.io message above its
   * maxHttpBufferSize (16 MB), and a dropped batch would be resent, and dropped, forever.
   */
  nextBatch(jobId: number, maxItems: number, maxBytes: number): JobItem[] {
    const batch: JobItem[] = [];
    let bytes = 0;
    for (const item of this.pending(jobId)) {
      if (batch.length >= maxItems) break;
      bytes += Buffer.byteLength(JSON.stringify(item));
      if (batch.length > 0 && bytes > maxBytes) break;
      batch.push(item);
    }
    return batch;
  }

  jobIds(): number[] {
    return [...this.jobs.keys()];
  }

  pendingCount(): number {
    let count = 0;
    for (const job of this.jobs.values()) count += job.pending.length;
    return count;
  }

  private jobDir(jobId: number): string {
    return path.join(this.dir, String(jobId));
  }

  private readItems(jobId: number): JobItem[] {
    const file = path.join(this.jobDir(jobId), "items.jsonl");
    if (!fs.existsSync(file)) return [];
    let text = fs.readFileSync(file, "utf8");
    const complete = text.lastIndexOf("\n") + 1;
    if (complete < text.length) {
      // A torn last line from a crash mid-write: that item was never sent. Cut it off, or the
      // next append would be glued to it and lost as well.
      fs.truncateSync(file, Buffer.byteLength(text.slice(0, complete)));
      text = text.slice(0, complete);
    }
    const items: JobItem[] = [];
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        items.push(JSON.parse(line) as JobItem);
      } catch {
        // A torn last line from a crash mid-write: that item was never sent, nothing to resend.
      }
    }
    return items;
  }

  private readAcked(jobId: number): number {
    try {
      return Number(fs.readFileSync(path.join(this.jobDir(jobId), "acked"), "utf8")) || 0;
    } catch {
      return 0;
    }
  }
}
