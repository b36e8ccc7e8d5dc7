// Where the PostgreSQL server binaries are, for the throwaway clusters of scripts/create-migration.ts
// and test/support/postgres.ts.
import fs from "node:fs";
import path from "node:path";

/** The directory holding initdb and pg_ctl: PG_BIN, then PATH, then Debian's versioned dirs. */
export function findPostgresBin(): string {
  const candidates = [process.env.PG_BIN, ...(process.env.PATH ?? "").split(path.delimiter)];
  const debian = "/usr/lib/postgresql";
  if (fs.existsSync(debian)) {
    const versions = fs
      .readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => path.join(debian, v, "bin")));
  }
  const found = candidates.find((d) => d && fs.existsSync(path.join(d, "initdb")) && fs.existsSync(path.join(d, "pg_ctl")));
  if (!found) {
    throw new Error(
      "PostgreSQL server binaries (initdb, pg_ctl) not found: install postgresql (Debian/Ubuntu: apt-get install -y postgresql), " +
        "or set PG_BIN to their directory, or PLAYFORM_PG_URL to a superuser URL of a running server",
    );
  }
  return found;
}
