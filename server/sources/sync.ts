/**
 * Syncing a Git source: fetch its branch or tag into a bare repository of the cache, check the
 * commit out into a folder of its own (`<cache>/<source>/<commit>/`, never changed afterwards),
 * and import the forms of its forms folder from there, as the forms folder's import does
 * (server/forms/import.ts): a bad form is refused with its file and the reason, the others
 * import. A form keeps its previous version (and commit) when the new one is refused, and a
 * sync that fails (fetch refused, ref gone, no forms folder) keeps the last good commit and
 * says why. Jobs launched before a sync keep reading their own commit's folder, so a checkout
 * is removed only once no form, no unfinished job and not the previous commit needs it.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DomainError } from "../errors";
import { audited, recordAudit } from "../audit/record";
import { gitSourceSecret } from "../credentials/resolve";
import {
  finishSync,
  findFormOrigins,
  findSourceRow,
  listCommitsOfUnfinishedJobs,
  listSourcesDue,
  listSourceForms,
  sourceCacheDir,
  takeSyncLease,
  type SourceRow,
} from "../data/sources";
import { upsertForm } from "../data/forms";
import { loadFormsFrom } from "../forms/import";
import { loggerFor } from "../logging/logger";
import { GIT_TIMEOUT_MS, GitError, runGit, type GitAuth } from "./git";

const log = loggerFor({ component: "sources" });

/** A sync whose node died is taken over after this long (longer than any of its git commands). */
export const SYNC_LEASE_STALE_MS = 3 * GIT_TIMEOUT_MS;

const COMMIT_DIR = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

export interface SyncResult {
  status: "ok" | "failed";
  /** The source's commit after the sync: the new one, or the last good one when it failed. */
  commit: string | null;
  /** Forms imported from the new commit, by name. */
  imported: string[];
  /** Forms refused, one message each (file and reason). */
  errors: string[];
  /** Why the sync failed; null when it did not. */
  error: string | null;
}

/** Why a sync could not import anything: said as is on the Sources page. */
class SyncError extends Error {}

/**
 * The known_hosts file ssh checks a source's host key against: PLAYFORM_SSH_KNOWN_HOSTS, else
 * `known_hosts` in the app's data folder (beside `sources/`, whose entries are sources' names).
 */
export function knownHostsFile(): string {
  return process.env.PLAYFORM_SSH_KNOWN_HOSTS || path.join(path.dirname(sourceCacheDir()), "known_hosts");
}

async function authOf(source: SourceRow): Promise<GitAuth> {
  if (!source.credential) return { kind: "none" };
  const secret = await gitSourceSecret(source.credential);
  if (!secret.ok) throw new SyncError(secret.message);
  if (secret.kind === "ssh") return { kind: "ssh", privateKey: secret.privateKey };
  // Refused at registration too; a source stored before that rule fails its sync here.
  if (!source.url.startsWith("https://"))
    throw new SyncError(
      `credential "${source.credential}" is an https token, and the source's url is not https://: it would be sent in clear`,
    );
  return { kind: "token", token: secret.token, url: source.url };
}

/** The commit's folder, checked out once (into a temporary folder renamed at the end, so it is whole or absent). */
async function checkout(cache: string, repo: string, commit: string, gitOptions: { knownHostsFile: string }): Promise<string> {
  const dir = path.join(cache, commit);
  if (fs.existsSync(dir)) return dir;
  const suffix = randomBytes(6).toString("hex");
  const tmp = path.join(cache, `.tmp-${suffix}`);
  const index = path.join(cache, `.index-${suffix}`);
  fs.mkdirSync(tmp, { mode: 0o700 });
  try {
    await runGit(
      ["--git-dir", repo, "--work-tree", tmp, "checkout", "-f", commit, "--", "."],
      { kind: "none" },
      {
        ...gitOptions,
        cwd: cache,
        env: { GIT_INDEX_FILE: index },
      },
    );
    fs.renameSync(tmp, dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(index, { force: true });
  }
  return dir;
}

async function fetchAndImport(source: SourceRow): Promise<{ commit: string; imported: string[]; errors: string[] }> {
  const cache = path.join(sourceCacheDir(), source.name);
  fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
  // Left by a sync whose node died (this one holds the lease).
  for (const entry of fs.readdirSync(cache))
    if (entry.startsWith(".tmp-") || entry.startsWith(".index-")) fs.rmSync(path.join(cache, entry), { recursive: true, force: true });
  const gitOptions = { knownHostsFile: knownHostsFile(), cwd: cache };
  const repo = path.join(cache, "repo.git");
  if (!fs.existsSync(path.join(repo, "HEAD"))) await runGit(["init", "--quiet", "--bare", repo], { kind: "none" }, gitOptions);
  const ref = source.ref ?? "HEAD";
  await runGit(
    ["--git-dir", repo, "fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--depth=1", "--", source.url, ref],
    await authOf(source),
    gitOptions,
  );
  const commit = (
    await runGit(["--git-dir", repo, "rev-parse", "--verify", "--end-of-options", "FETCH_HEAD^{commit}"], { kind: "none" }, gitOptions)
  ).trim();
  if (!COMMIT_DIR.test(commit)) throw new SyncError(`git answered "${commit}" for the fetched commit`);
  const dir = await checkout(cache, repo, commit, gitOptions);
  const formsRoot = path.join(dir, source.formsPath);
  if (!fs.existsSync(formsRoot))
    throw new SyncError(`commit ${commit.slice(0, 12)} has no folder "${source.formsPath}" (the source's formsPath)`);

  // Nothing of the repository runs on the app: a runner lists a hosts field's inventory when a page needs it.
  const loaded = loadFormsFrom(formsRoot);
  // Paths inside the repository, not the cache's.
  const errors = loaded.errors.map((error) => error.split(`${dir}${path.sep}`).join(""));
  const origins = await findFormOrigins(loaded.forms.map((form) => form.definition.name));
  const imported: string[] = [];
  for (const form of loaded.forms) {
    const name = form.definition.name;
    const origin = origins.get(name);
    if (origin !== undefined && origin !== source.name) {
      errors.push(
        `form "${name}" not imported: a form of that name exists already, ${origin === null ? "from the forms folder" : `from source "${origin}"`}`,
      );
      continue;
    }
    await upsertForm(form.definition, form.sourceDir, {}, { sourceName: source.name, sourceCommit: commit });
    imported.push(name);
  }
  return { commit, imported: imported.sort(), errors };
}

/** Checkouts no form, no unfinished job and neither the new nor the previous commit needs any more. */
export async function removeOldCheckouts(source: string, keep: (string | null)[]): Promise<void> {
  const cache = path.join(sourceCacheDir(), source);
  const kept = new Set([
    ...keep.filter((c): c is string => c !== null),
    ...(await listSourceForms(source)).map((f) => f.sourceCommit).filter((c): c is string => c !== null),
    ...(await listCommitsOfUnfinishedJobs(source)),
  ]);
  for (const entry of fs.readdirSync(cache)) {
    if (COMMIT_DIR.test(entry) && !kept.has(entry)) fs.rmSync(path.join(cache, entry), { recursive: true, force: true });
  }
}

/**
 * Syncs the source now, under its lease (one sync of a source at a time, across nodes).
 * Returns null when another sync holds the lease. A failed sync is a result, not an error.
 */
export async function trySync(name: string): Promise<SyncResult | null> {
  const source = await findSourceRow(name);
  if (!source) throw new DomainError("not_found", `no source named "${name}"`);
  if (!(await takeSyncLease(name, SYNC_LEASE_STALE_MS))) return null;
  try {
    const result = await fetchAndImport(source);
    await finishSync(name, { status: "ok", commit: result.commit, errors: result.errors });
    log().info(`source ${name}: synced ${result.commit}, ${result.imported.length} form(s) imported, ${result.errors.length} refused`);
    try {
      await removeOldCheckouts(name, [result.commit, source.commit]);
    } catch (error) {
      log().warn({ err: error }, `source ${name}: removing old checkouts failed`);
    }
    return { status: "ok", ...result, error: null };
  } catch (error) {
    // Expected failures (git's refusal, a bad credential) are said as they are; anything else
    // is a bug, logged with its stack and said generically.
    const expected = error instanceof SyncError || error instanceof GitError;
    const message = expected ? (error as Error).message : "internal error; see the server log";
    if (expected) log().warn(`source ${name}: sync failed: ${message}`);
    else log().error({ err: error }, `source ${name}: sync failed`);
    await finishSync(name, { status: "failed", error: message });
    return { status: "failed", commit: source.commit, imported: [], errors: [], error: message };
  }
}

/** The audit details of a sync's result; a failed sync is recorded as a failure, with why. */
function syncAuditDetails(result: SyncResult): Record<string, unknown> {
  return {
    status: result.status,
    commit: result.commit,
    imported: result.imported.length,
    errors: result.errors.length,
    ...(result.error === null ? {} : { reason: result.error.slice(0, 300) }),
  };
}

const syncOutcome = (result: SyncResult) => (result.status === "ok" ? "success" : "failure") as "success" | "failure";

/** An admin's Sync: waits for the end; 409 while another sync of the source runs. */
export async function syncSourceNow(name: string, actor: string): Promise<SyncResult> {
  const audit = { actor, action: "source.sync", target: `source:${name}`, details: { via: "api" } } as const;
  return audited({ ...audit, detailsOf: syncAuditDetails, outcomeOf: syncOutcome }, async () => {
    const result = await trySync(name);
    if (!result) throw new DomainError("conflict", `a sync of source "${name}" is running: wait for its end (the Sources page shows it)`);
    return result;
  });
}

/**
 * A sync asked for by a webhook or the periodic check, in the background: when another sync
 * holds the lease, it waits for its end (polling) and syncs after it, so a push made during a
 * sync is not missed.
 */
export async function syncInBackground(name: string, via: "webhook" | "schedule", pollMs = 2000): Promise<void> {
  const deadline = Date.now() + SYNC_LEASE_STALE_MS;
  for (;;) {
    const result = await trySync(name);
    if (result) {
      if (via === "webhook") {
        await recordAudit({
          actor: null,
          action: "source.sync",
          target: `source:${name}`,
          outcome: syncOutcome(result),
          details: { via, ...syncAuditDetails(result) },
        });
      }
      return;
    }
    if (via === "schedule" || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * The periodic check (server/index.ts, every minute on every node): sources synced every N
 * minutes whose last sync is older than that. Each node tries; the lease lets one sync.
 */
export async function syncDueSources(now = new Date()): Promise<void> {
  for (const name of await listSourcesDue(now)) await syncInBackground(name, "schedule");
}
