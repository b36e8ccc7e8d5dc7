/**
 * In-memory caches of what is derived from a job's stored items (its events, mostly), for the
 * analytics that read many jobs per request: the progress estimate's reference runs and the
 * idempotence report's per-run summaries. Each app node has its own.
 */

/** A Map that forgets its least recently used entry beyond `size`. */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly size: number) {}

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.size) this.map.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}

/**
 * What `read` derives from a finished job, kept per job id while the job's lastSeq stays the
 * same. A finished job's items do not change, except when a late one arrives (a runner's end
 * after an app-side abandon): that moves lastSeq, and the next request reads again. The value
 * is kept as a promise, so requests missing the same job at once read it once; a failed read
 * (the database gone) is forgotten, so the next request tries again.
 */
export class FinishedJobCache<V> {
  private readonly entries: Lru<number, { lastSeq: number; value: Promise<V> }>;
  /** Hits and misses (a miss reads the job), for tests and the logs. */
  readonly stats = { hits: 0, misses: 0 };

  constructor(
    size: number,
    private readonly read: (jobId: number) => Promise<V>,
  ) {
    this.entries = new Lru(size);
  }

  get(jobId: number, lastSeq: number): Promise<V> {
    const cached = this.entries.get(jobId);
    if (cached && cached.lastSeq === lastSeq) {
      this.stats.hits += 1;
      return cached.value;
    }
    this.stats.misses += 1;
    const entry = { lastSeq, value: this.read(jobId) };
    this.entries.set(jobId, entry);
    entry.value.catch(() => {
      if (this.entries.get(jobId) === entry) this.entries.delete(jobId);
    });
    return entry.value;
  }

  clear(): void {
    this.entries.clear();
  }
}
