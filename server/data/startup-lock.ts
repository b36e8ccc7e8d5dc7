/**
 * The start-up write phase of an app node (admin account, example forms, demo credential, the
 * local runner, its token and instance) under one lock.
 *
 * With PostgreSQL several nodes may start at the same moment, and each of those writes first
 * reads whether its row exists: without the lock two nodes both find no admin, both insert it,
 * and one dies on the unique constraint. The lock is the PostgreSQL session advisory lock the
 * migrations take (server/data/migrate.ts), taken after they released it: one node writes, the
 * next one waits and then finds everything in place. SQLite has one app node: no lock.
 */
import pg from "pg";
import { providerFromUrl } from "./database-url";
import { PG_LOCK_KEY } from "./migrate";

export async function withStartupLock<T>(url: string, writes: () => Promise<T>): Promise<T> {
  if (providerFromUrl(url) !== "postgresql") return writes();
  // A connection of its own: the lock belongs to a session, and Prisma's pool gives no session.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PG_LOCK_KEY]);
    // Released by the unlock, or by PostgreSQL when this connection ends (a node dying mid-way).
    try {
      return await writes();
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [PG_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}
