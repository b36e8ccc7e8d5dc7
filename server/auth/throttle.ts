/**
 * Throttling state: recent events (failed logins, join requests) per key (a client address,
 * a user name), in memory on each app node. With several nodes behind a load balancer every
 * node counts for itself, so the limits hold per node.
 *
 * Memory is bounded whatever clients send: each key keeps at most `limit` timestamps, and a
 * counter holds at most `maxKeys` keys, evicting the least recently active one first. A flood
 * of new keys can therefore make a counter forget old entries, never grow without bound.
 *
 * Counters live on globalThis (under Symbol.for names): Next compiles each route into its own
 * bundle, and e.g. the login form and the token endpoint must count together.
 */
import { isIP } from "node:net";

export class RecentEvents {
  private readonly times = new Map<string, number[]>();

  constructor(
    /** Events per key within the window that are allowed; the next one waits. */
    readonly limit: number,
    readonly windowMs: number,
    readonly maxKeys = 10_000,
  ) {}

  /** The key's events still inside the window, oldest first (expired ones are dropped). */
  private recent(key: string, now: number): number[] {
    const list = this.times.get(key);
    if (!list) return [];
    const kept = list.filter((at) => now - at < this.windowMs);
    if (kept.length === 0) this.times.delete(key);
    else if (kept.length !== list.length) this.times.set(key, kept);
    return kept;
  }

  /** Seconds until the key may act again: 0 while it is under the limit. */
  retryAfterSeconds(key: string, now = Date.now()): number {
    const recent = this.recent(key, now);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.limit]! + this.windowMs - now) / 1000));
  }

  /** Whether the key had an event within the window. */
  has(key: string, now = Date.now()): boolean {
    return this.recent(key, now).length > 0;
  }

  /**
   * Check and count in one step: 0 and the event recorded while the key is under the limit,
   * else the seconds to wait (nothing recorded). Synchronous, so two requests of one node can
   * never both see the last free place: a login takes its place before it checks the password
   * and gives it back (`forget`) only if the password was right.
   */
  take(key: string, now = Date.now()): number {
    const wait = this.retryAfterSeconds(key, now);
    if (wait === 0) this.record(key, now);
    return wait;
  }

  /** Takes back one event of the key recorded at `at` (a login attempt that succeeded). */
  forget(key: string, at: number): void {
    const list = this.times.get(key);
    const index = list?.lastIndexOf(at) ?? -1;
    if (index < 0) return;
    list!.splice(index, 1);
    if (list!.length === 0) this.times.delete(key);
  }

  record(key: string, now = Date.now()): void {
    const recent = this.recent(key, now);
    recent.push(now);
    if (recent.length > this.limit) recent.splice(0, recent.length - this.limit);
    // Re-inserted, so the Map's order is least recently active first.
    this.times.delete(key);
    this.times.set(key, recent);
    for (const oldest of this.times.keys()) {
      if (this.times.size <= this.maxKeys) break;
      this.times.delete(oldest);
    }
  }

  get size(): number {
    return this.times.size;
  }
}

/** The counter registered under `name` in this process, created on first use. */
export function sharedCounter(name: string, create: () => RecentEvents): RecentEvents {
  const key = Symbol.for(`playform.throttle.${name}`);
  const holder = globalThis as typeof globalThis & { [key: symbol]: RecentEvents | undefined };
  return (holder[key] ??= create());
}

/** Groups of eight 16-bit hex digits of an IPv6 address, or null. */
function ipv6Groups(address: string): string[] | null {
  let text = address.split("%")[0]!.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const bytes = v4[1]!.split(".").map(Number);
    text = `${text.slice(0, -v4[1]!.length)}${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return null;
  return [...left, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...right];
}

/**
 * The throttling key of a client address: the address itself for IPv4, its /64 network for
 * IPv6 (one subscriber usually holds a whole /64, so single IPv6 addresses cost nothing).
 */
export function addressKey(address: string): string {
  if (isIP(address) !== 6) return address.slice(0, 100);
  const groups = ipv6Groups(address);
  return groups
    ? `${groups
        .slice(0, 4)
        .map((g) => g.padStart(4, "0"))
        .join(":")}::/64`
    : address.slice(0, 100);
}
