/**
 * Work that one app node at a time does (retention, the hosts catch-up): on PostgreSQL a session
 * advisory lock on a connection of its own, released by the unlock, or by PostgreSQL if the node
 * dies. SQLite has one app node, whose own runs the caller keeps apart.
 */
import pg from "pg";
import { databaseProvider, databaseUrl } from "./db";

/** The keys in use (Prisma Migrate's is 72707369): one per kind of work. */
export const ADVISORY_LOCKS = { retention: 72707370, hostsCatchUp: 72707371 } as const;

/** Runs `work` unless another node holds the lock `key`: null then. */
export async function withAdvisoryLock<T>(key: number, work: () => Promise<T>): Promise<T | null> {
  if (databaseProvider() !== "postgresql") return work();
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [key]);
    if (!rows[0]?.locked) return null;
    try {
      return await work();
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [key]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}
