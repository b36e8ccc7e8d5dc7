/**
 * A job's Ansible requirements (requirements.yml): where they are, what they name, and the key
 * of the cache entry they install into (requirements-cache.ts). No process is run here.
 *
 * Where: beside the playbook (`requirements.yml`), and in the `collections/` and `roles/` folders
 * beside it (`collections/requirements.yml`, `roles/requirements.yml`: where AWX and Semaphore look
 * for them). Each file is either the v2 form, a mapping with `collections:` and/or `roles:` lists,
 * or a plain list of roles (the older form).
 *
 * The key is the sha256 of everything that decides what an install produces and that the runner
 * can know without installing: the environment (name, and its ansible-core version or, when the
 * probe has not told it, its ansible-galaxy), the Galaxy server (RTE_GALAXY_SERVER), each
 * requirements file's path and bytes, and the bytes of every local file or folder a file names
 * (a tarball beside the playbook: changing it changes the key). Unless every entry is plainly
 * remote (plainlyRemoteNames), every file of the job too: ansible-galaxy takes for a path more
 * than the names written as one (`- poisoncoll` when it is a folder of the job, a role tarball
 * without extension, an entry merged in with YAML 1.1's `<<`: attack 8; a role's dependency: attack
 * 9), so a file that names any role, or anything but collections' Galaxy names and URLs, shares
 * its entry with no other form. What lies elsewhere is
 * named, not hashed: a git URL or a version range is part of the file's bytes only, so a moving
 * git branch or a new release on the server is not fetched again until the file changes
 * (docs/forms.md).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";

/** Where requirements files are looked for, relative to the playbook's folder. */
export const REQUIREMENTS_FILES = ["requirements.yml", "collections/requirements.yml", "roles/requirements.yml"] as const;

/** How long the key's hex printed in the job's output is: enough to tell entries apart. */
export const SHORT_KEY_LENGTH = 12;

/** The requirements files of a job: paths relative to its folder, of the files it has (`has`). */
export function findRequirementsFiles(playbook: string, has: (relativePath: string) => boolean): string[] {
  const folder = path.posix.dirname(path.posix.normalize(playbook));
  return REQUIREMENTS_FILES.map((name) => (folder === "." ? name : path.posix.join(folder, name))).filter((candidate) => has(candidate));
}

export interface ParsedRequirements {
  /** Whether `ansible-galaxy collection install -r` has something to do. */
  collections: number;
  /** Whether `ansible-galaxy role install -r` has something to do. */
  roles: number;
  /** Paths the file names that are local files or folders (tarballs, collection folders), as written. */
  localPaths: string[];
  /**
   * When every entry is plainly remote (plainlyRemoteNames), the Galaxy names it installs by,
   * which must name no file or folder of the job; null when some entry is not: the job's files
   * then go into the key.
   */
  galaxyNames: string[] | null;
}

export class RequirementsFileError extends Error {}

/** What a requirements file holds; throws RequirementsFileError naming the file when it is not one. */
export function parseRequirements(text: string, file: string): ParsedRequirements {
  let data: unknown;
  try {
    data = parseYaml(text, { prettyErrors: false });
  } catch (error) {
    throw new RequirementsFileError(`${file}: not valid YAML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
  if (data === null || data === undefined) return { collections: 0, roles: 0, localPaths: [], galaxyNames: [] };
  let collections: unknown[];
  let roles: unknown[];
  if (Array.isArray(data)) {
    collections = [];
    roles = data;
  } else if (typeof data === "object") {
    const record = data as Record<string, unknown>;
    for (const key of ["collections", "roles"] as const) {
      const value = record[key];
      if (value !== undefined && value !== null && !Array.isArray(value)) {
        throw new RequirementsFileError(`${file}: ${key}: must be a list`);
      }
    }
    collections = (record.collections as unknown[] | null | undefined) ?? [];
    roles = (record.roles as unknown[] | null | undefined) ?? [];
  } else {
    throw new RequirementsFileError(`${file}: must be a list of roles or a mapping with collections: and roles: lists`);
  }
  const localPaths = [...collections.flatMap(collectionLocalPath), ...roles.flatMap(roleLocalPath)];
  return {
    collections: collections.length,
    roles: roles.length,
    localPaths: [...new Set(localPaths)],
    galaxyNames: plainlyRemoteNames(text, collections, roles),
  };
}

/** A collection's Galaxy name, `namespace.name` (ansible-galaxy's is_valid_collection_name, roughly). */
const COLLECTION_NAME = /^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$/;
/** A collection's remote source: a Galaxy server's URL. */
const REMOTE_URL = /^(?:https?|git\+https):\/\/[^\s]+$/;
/**
 * What YAML 1.1 (PyYAML, ansible-galaxy's) reads otherwise than YAML 1.2 (the yaml package, ours):
 * a merge key `<<`, anchors `&a` and aliases `*a` (what they copy), and tags `!…`. Looked for in
 * the whole text, quoted or not: a version like `1.*` then only costs the entry's sharing.
 */
const YAML_INDIRECTION = /<<|[&*][^\s,\]}]|(?:^|[\s[{,:-])!/;

/**
 * The Galaxy names the file installs by when every entry is plainly remote, else null (the job's
 * files then go into the key). Plainly remote: a collection written as `namespace.name`, or a
 * mapping of only `name` (such a name), `version`, `type: galaxy` and `source` (an http(s) URL);
 * no role at all; and a text with no YAML indirection (YAML_INDIRECTION). Anything else may read
 * the job's folder: ansible-galaxy takes for a path any name that is not a valid Galaxy name and
 * exists (`_is_concrete_artifact_pointer`), a role's `src` file of any name, an `include:` of
 * another file; rather than follow galaxy's rules, such a file's key holds every file of the job
 * (readJobRequirements). The names returned are checked there against the job's files: one that
 * is a file or folder of the job is not plainly remote.
 *
 * Roles, however written (a Galaxy name, a URL: attack 9): once ansible-galaxy has installed a
 * role it installs the role's dependencies (its meta/main.yml `dependencies:` and
 * meta/requirements.yml), and takes a dependency's `src` that is a file of its working folder,
 * the job's, for the role's archive (`geerlingguy.repo-epel`, any name). What a role depends on
 * is known only once it is installed, so the key cannot check those names as it checks the
 * file's own: two forms with the same file shared an entry holding the first one's file as the
 * dependency. A collection's dependencies are `namespace.name` from a Galaxy server only: a
 * collections-only file stays shared.
 */
function plainlyRemoteNames(text: string, collections: readonly unknown[], roles: readonly unknown[]): string[] | null {
  if (YAML_INDIRECTION.test(text) || roles.length > 0) return null;
  const names: string[] = [];
  const only = (entry: Record<string, unknown>, keys: readonly string[]) => Object.keys(entry).every((key) => keys.includes(key));
  const isText = (value: unknown): value is string => typeof value === "string";
  for (const entry of collections) {
    if (isText(entry) && COLLECTION_NAME.test(entry)) {
      names.push(entry);
      continue;
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return null;
    const record = entry as Record<string, unknown>;
    const { name, version, type, source } = record;
    if (!only(record, ["name", "version", "type", "source"])) return null;
    if (!isText(name) || !COLLECTION_NAME.test(name)) return null;
    if (version !== undefined && !isText(version) && typeof version !== "number") return null;
    if (type !== undefined && type !== "galaxy") return null;
    if (source !== undefined && !(isText(source) && REMOTE_URL.test(source))) return null;
    names.push(name);
  }
  return [...new Set(names)];
}

/** A value written as a path: ./x, ../x, /x, or a tarball's name. */
function looksLikePath(value: string): boolean {
  return /^(\.{1,2}\/|\/)/.test(value) || /\.(tar\.gz|tgz|tar)$/.test(value);
}

function collectionLocalPath(entry: unknown): string[] {
  if (typeof entry === "string") return looksLikePath(entry) ? [entry] : [];
  if (typeof entry !== "object" || entry === null) return [];
  const { name, type, source } = entry as Record<string, unknown>;
  const found: string[] = [];
  // type: file (a tarball), dir (a collection's folder), subdirs (a namespace's folder).
  if (typeof name === "string" && (["file", "dir", "subdirs"].includes(String(type)) || (type === undefined && looksLikePath(name))))
    found.push(name);
  if (typeof source === "string" && looksLikePath(source) && !/^[a-z+]+:\/\//.test(source)) found.push(source);
  return found;
}

function roleLocalPath(entry: unknown): string[] {
  if (typeof entry === "string") {
    const src = entry.split(",")[0]!.trim();
    return looksLikePath(src) ? [src] : [];
  }
  if (typeof entry !== "object" || entry === null) return [];
  const { src } = entry as Record<string, unknown>;
  return typeof src === "string" && looksLikePath(src) && !/^[a-z+]+:\/\//.test(src) ? [src] : [];
}

export interface KeyInput {
  environment: string;
  /** ansible-core's version as the probe found it, else the ansible-galaxy that installs. */
  ansible: string;
  galaxyServer: string | null;
  /** Each requirements file: its path in the job folder and its bytes. */
  files: { path: string; bytes: Buffer }[];
  /** Each local path the files name, with the digest of its content (null: not in the job folder, or missing). */
  local: { path: string; digest: string | null }[];
}

/**
 * A cache key being built: `part` adds a labelled value, length-prefixed so none can pose as
 * another; `local` adds the local paths named, sorted, with their digests; `digest` ends it (sha256 hex).
 */
export function keyHasher() {
  const hash = createHash("sha256");
  const part = (label: string, value: string | Buffer) => {
    const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value;
    hash.update(`${label}:${bytes.length}:`);
    hash.update(bytes);
    hash.update("\n");
  };
  const local = (paths: readonly { path: string; digest: string | null }[]) => {
    for (const named of [...paths].sort((a, b) => a.path.localeCompare(b.path))) {
      part("local", named.path);
      part("digest", named.digest ?? "-");
    }
  };
  return { part, local, digest: () => hash.digest("hex") };
}

/** The cache entry's key: sha256 hex of every input, each length-prefixed so none can pose as another. */
export function requirementsKey(input: KeyInput): string {
  const { part, local, digest } = keyHasher();
  // 2: installs read the runner's ansible configuration, no longer the form's ansible.cfg (attack 7):
  // an entry of 1 may come from a server a form chose, and is never used again. 3: a file that is
  // not plainly remote keys by the job's files (attack 8): an entry of 2 may hold a form's folder.
  // 4: a file with roles keys by the job's files (attack 9): an entry of 3 may hold a form's file
  // installed as a role's dependency.
  part("v", "4");
  part("environment", input.environment);
  part("ansible", input.ansible);
  part("galaxy-server", input.galaxyServer ?? "");
  for (const file of input.files) {
    part("file", file.path);
    part("bytes", file.bytes);
  }
  local(input.local);
  return digest();
}

/**
 * The digest of a local path a requirements file names, resolved against the job folder (where
 * ansible-galaxy runs): a file's bytes, or a folder's files (names and bytes). Null for what is
 * not inside the job folder (never read for the key: it could be anything of the runner's, a
 * device) or not there (the install then fails, saying so).
 */
export function localDigest(jobDir: string, written: string): string | null {
  const root = path.resolve(jobDir);
  const target = path.resolve(root, written);
  if (target !== root && !target.startsWith(root + path.sep)) return null;
  let st: fs.Stats;
  try {
    st = fs.lstatSync(target);
  } catch {
    return null;
  }
  const hash = createHash("sha256");
  if (st.isFile()) return hash.update(fs.readFileSync(target)).digest("hex");
  if (!st.isDirectory()) return null;
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(folder, entry.name);
      const rel = path.relative(target, full);
      if (entry.isDirectory()) {
        hash.update(`d:${rel}\n`);
        walk(full);
      } else if (entry.isFile()) {
        const bytes = fs.readFileSync(full);
        hash.update(`f:${rel}:${bytes.length}\n`).update(bytes);
      }
    }
  };
  walk(target);
  return hash.digest("hex");
}

/**
 * The digest of a local path a requirements file names, from the job's manifest (the sha256 of
 * each of its files, which the RTE checked when it laid them out): a file's hash, or for a folder
 * the hash of its files' paths and hashes. So a cached launch reads no tarball: hashing a 20 MB
 * one at every launch took 110 ms. Null for a path that is no file or folder of the job.
 */
export function manifestDigest(manifest: readonly { path: string; sha256: string }[], written: string): string | null {
  if (path.posix.isAbsolute(written)) return null;
  const target = path.posix.normalize(written).replace(/\/+$/, "");
  if (target === ".." || target.startsWith("../")) return null;
  const file = manifest.find((entry) => entry.path === target);
  if (file) return file.sha256;
  const inside = manifest.filter((entry) => target === "." || entry.path.startsWith(`${target}/`));
  if (inside.length === 0) return null;
  const hash = createHash("sha256");
  for (const entry of [...inside].sort((a, b) => a.path.localeCompare(b.path))) hash.update(`f:${entry.path}:${entry.sha256}\n`);
  return hash.digest("hex");
}

/** The path whose digest stands for every file of the job (manifestDigest and localDigest of the job's folder). */
export const WHOLE_JOB = ".";

/** A job's requirements: its files, what they need run, and their cache key. */
export interface JobRequirements {
  key: string;
  files: { path: string; collections: number; roles: number }[];
}

/**
 * Reads a job's requirements files from its folder (`files`, from findRequirementsFiles) and
 * computes their key; `digest` gives the local paths' digests (the job's manifestDigest; by
 * default their bytes on disk, localDigest), null for what is no file or folder of the job: also
 * asked of each Galaxy name, and of the whole job (WHOLE_JOB) when an entry is not plainly remote. Throws RequirementsFileError for a file that is not
 * a requirements file.
 */
export function readJobRequirements(
  jobDir: string,
  files: readonly string[],
  context: { environment: string; ansible: string; galaxyServer: string | null },
  digest: (written: string) => string | null = (written) => localDigest(jobDir, written),
): JobRequirements {
  const read = files.map((file) => {
    const bytes = fs.readFileSync(path.join(jobDir, file));
    return { path: file, bytes, parsed: parseRequirements(bytes.toString("utf8"), file) };
  });
  const localPaths = [...new Set(read.flatMap((file) => file.parsed.localPaths))];
  // A Galaxy name that is also a file or folder of the job may be read as a path: galaxy resolves paths from the job folder.
  const plainlyRemote = read.every(
    ({ parsed }) => parsed.galaxyNames !== null && parsed.galaxyNames.every((name) => digest(name) === null),
  );
  const local = localPaths.map((p) => ({ path: p, digest: digest(p) }));
  if (!plainlyRemote) local.push({ path: WHOLE_JOB, digest: digest(WHOLE_JOB) ?? "-" });
  const key = requirementsKey({ ...context, files: read.map(({ path: p, bytes }) => ({ path: p, bytes })), local });
  return { key, files: read.map((file) => ({ path: file.path, collections: file.parsed.collections, roles: file.parsed.roles })) };
}
