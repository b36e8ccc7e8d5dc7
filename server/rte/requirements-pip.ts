/**
 * A job's Python requirements (requirements.txt): where the file is, what local files it names,
 * the key of the cache entry (requirements-cache.ts) holding the virtual environment they are
 * installed into, and pip's command line. No process is run here; only the file is read.
 *
 * Where: `requirements.txt` beside the playbook only. AWX's `collections/requirements.txt` is no
 * convention of a project's (AWX reads Python requirements from an execution environment's
 * definition, not from the project), and a `roles/requirements.txt` would be a role's own: both
 * are left alone rather than guessed at.
 *
 * The key is the sha256 of what decides what pip installs and that the runner knows without
 * running anything: the environment (name, ansible-core and Python versions, as the probe found
 * them), the file's bytes, the bytes (manifest sha256) of every local file it names (a wheel
 * shipped beside the playbook, another requirements file it includes with -r or -c), and the
 * runner's index and find-links settings. A package named by version range is named, not
 * resolved: a new release on the index is not installed until the file changes (pin versions).
 */
import fs from "node:fs";
import path from "node:path";
import { keyHasher } from "./requirements";

export const PIP_REQUIREMENTS_FILE = "requirements.txt";

/** The job's requirements.txt (a path relative to its folder), when it has one. */
export function findPipRequirementsFile(playbook: string, has: (relativePath: string) => boolean): string | null {
  const folder = path.posix.dirname(path.posix.normalize(playbook));
  const candidate = folder === "." ? PIP_REQUIREMENTS_FILE : path.posix.join(folder, PIP_REQUIREMENTS_FILE);
  return has(candidate) ? candidate : null;
}

/**
 * The local paths a requirements.txt names, as written: `-r`/`-c` files, and requirement lines
 * that are paths (`./pkg`, `vendor/x-1.0-py3-none-any.whl`, `/abs/x.tar.gz`). Paths of pip are
 * relative to the file's folder; the caller resolves them (pipLocalPaths).
 */
export function parsePipLocalPaths(text: string): string[] {
  const found: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, "").trim();
    if (line === "") continue;
    const include = /^(?:-r|--requirement|-c|--constraint)(?:\s+|=)(\S+)/.exec(line);
    if (include) {
      found.push(include[1]!);
      continue;
    }
    if (line.startsWith("-")) continue; // an option (--hash, -e, --pre ...): nothing local to hash
    const first = line.split(/\s|;/)[0]!;
    if (/^[a-z+]+:\/\//i.test(first)) continue;
    if (/^(\.{1,2}\/|\/)/.test(first) || /\.(whl|tar\.gz|tgz|zip)$/.test(first)) found.push(first);
  }
  return [...new Set(found)];
}

/** A local path as the job folder's relative path (pip resolves it against the file's folder). */
export function pipLocalPath(file: string, written: string): string {
  if (path.posix.isAbsolute(written)) return written;
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), written));
}

export interface PipSettings {
  /** RTE_PIP_INDEX_URL: pip's --index-url. */
  indexUrl: string | null;
  /** RTE_PIP_FIND_LINKS: a folder or URL of wheels and sdists (pip's --find-links). */
  findLinks: string | null;
}

export interface PipKeyInput extends PipSettings {
  environment: string;
  /** ansible-core's version as the probe found it, else the ansible-playbook the job runs. */
  ansible: string;
  /** The environment's Python version as the probe found it (null: unknown). */
  python: string | null;
  file: { path: string; bytes: Buffer };
  /** Each local path the file names with its digest (null: not a file of the job). */
  local: { path: string; digest: string | null }[];
}

/** The cache entry's key: sha256 hex of every input, length-prefixed, and never equal to a requirements.yml key. */
export function pipRequirementsKey(input: PipKeyInput): string {
  const { part, local, digest } = keyHasher();
  part("kind", "pip");
  part("v", "1");
  part("environment", input.environment);
  part("ansible", input.ansible);
  part("python", input.python ?? "");
  part("index-url", input.indexUrl ?? "");
  part("find-links", input.findLinks ?? "");
  part("file", input.file.path);
  part("bytes", input.file.bytes);
  local(input.local);
  return digest();
}

/** Whether RTE_PIP_FIND_LINKS names a folder (an absolute path), not a URL. */
export function isFolderLink(findLinks: string): boolean {
  return findLinks.startsWith("/");
}

/**
 * pip's arguments after `<venv>/bin/python -m pip`: install the file, with the runner's index and
 * find-links. A find-links folder without an index means a runner without internet: --no-index,
 * so pip never waits on PyPI before failing. No cache of pip's own (the entry is the cache), no
 * version check, no prompt.
 */
export function pipInstallArgs(file: string, settings: PipSettings): string[] {
  const args = ["install", "--disable-pip-version-check", "--no-input", "--no-cache-dir", "--progress-bar", "off", "-r", file];
  if (settings.indexUrl !== null) args.push("--index-url", settings.indexUrl);
  if (settings.findLinks !== null) {
    args.push("--find-links", settings.findLinks);
    if (settings.indexUrl === null && isFolderLink(settings.findLinks)) args.push("--no-index");
  }
  return args;
}

/**
 * The Python ansible-playbook runs under and the script it is, from `ansible-playbook --version`
 * (ansible-core 2.11+: `python version = 3.11.2 (main, …) [GCC 12.2.0] (/usr/bin/python3)` and
 * `executable location = /usr/bin/ansible-playbook`). Asked of ansible itself, not read from a
 * shebang: the program may be a wrapper script (pipx, a distribution's launcher), and the
 * interpreter it names is the one ansible really runs under. Null for what is not printed.
 */
export function parseAnsibleInterpreter(output: string): { python: string | null; script: string | null } {
  const pythonLine = /^\s*python version = .*\((\/[^()]*)\)\s*$/m.exec(output);
  const script = /^\s*executable location = (\/.+?)\s*$/m.exec(output);
  return { python: pythonLine?.[1] ?? null, script: script?.[1] ?? null };
}

/**
 * What `python -c` prints, one JSON object: the folders of packages the environment's Python
 * sees (its site-packages and dist-packages, a virtual environment's included) and whether it
 * has pip. With pip there, the venv is made without its own (--without-pip) and uses the
 * environment's through those folders: `python -m venv` bootstrapping pip with ensurepip took
 * 5 s of a 6 s first install, without it 0.1 s.
 */
export const ENVIRONMENT_PYTHON_SCRIPT =
  "import importlib.util, json, sys; print(json.dumps({'folders': [p for p in sys.path if p.rstrip('/').endswith(('site-packages', 'dist-packages'))], 'pip': importlib.util.find_spec('pip') is not None}))";

/**
 * Run with the new virtual environment's python and the folders as argv[1] (JSON): writes them to
 * a .pth file of its site-packages, after which they are searched after its own packages. This is
 * what layers the venv on an environment that is itself a virtual environment: --system-site-packages
 * only reaches the base Python's packages, not those of the venv the environment's ansible is in.
 */
export const LAYER_SCRIPT =
  "import json, site, sys; open(site.getsitepackages()[0] + '/_playform_environment.pth', 'w').write(''.join(p + '\\n' for p in json.loads(sys.argv[1])))";

/**
 * Reads a job's requirements.txt (`file`, from findPipRequirementsFile) and computes its key;
 * `digest` gives the local paths' digests (the job's manifestDigest), by their path in the job.
 */
export function readPipRequirements(
  jobDir: string,
  file: string,
  context: Omit<PipKeyInput, "file" | "local">,
  digest: (relativePath: string) => string | null,
): { file: string; key: string } {
  const bytes = fs.readFileSync(path.join(jobDir, file));
  const local = parsePipLocalPaths(bytes.toString("utf8")).map((written) => {
    const relative = pipLocalPath(file, written);
    return { path: relative, digest: digest(relative) };
  });
  return { file, key: pipRequirementsKey({ ...context, file: { path: file, bytes }, local }) };
}
