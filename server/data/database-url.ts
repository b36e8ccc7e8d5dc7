/**
 * What a DATABASE_URL means. Kept apart from migrate.ts (which reads the migrations folder)
 * so Next's bundles can import it without tracing the file system.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";

export type DatabaseProvider = "sqlite" | "postgresql";

export const DEFAULT_DATABASE_URL = "file:./data/playform.db";

export function providerFromUrl(url: string): DatabaseProvider {
  if (url.startsWith("file:")) return "sqlite";
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return "postgresql";
  throw new Error(`DATABASE_URL must start with file:, postgres:// or postgresql:// (got "${url.split(":")[0]}:...")`);
}

/**
 * The SQLite file of a `file:` URL: `file:./data/x.db` and `file:data/x.db` resolve against
 * process.cwd(), `file:/abs/x.db` and `file:///abs/x.db` are absolute, `file::memory:` is in
 * memory. A `?query` part is ignored.
 */
export function sqliteFilePath(url: string): string {
  const rest = url.replace(/^file:/, "").replace(/\?.*$/, "");
  if (rest === ":memory:" || rest === "") return ":memory:";
  const file = rest.startsWith("//") ? fileURLToPath(`file:${rest}`) : decodeURIComponent(rest);
  return path.resolve(/*turbopackIgnore: true*/ process.cwd(), file);
}


/**
 * Where files that belong with the database are kept (the generated encryption key): the SQLite
 * file's directory, else (PostgreSQL, an in-memory SQLite) ./data.
 */
export function databaseFilesDir(url: string): string {
  if (providerFromUrl(url) === "sqlite") {
    const file = sqliteFilePath(url);
    if (file !== ":memory:") return path.dirname(file);
  }
  return path.resolve("data");
}
