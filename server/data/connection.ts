/**
 * The database connection as the custom server sees it: closed once on shutdown. The client
 * itself (server/data/db.ts) stays inside server/data.
 */
import { closeDb } from "./db";

export async function closeDatabase(): Promise<void> {
  await closeDb();
}
