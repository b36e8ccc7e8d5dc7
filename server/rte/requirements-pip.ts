/**
 * A job's Python requirements (requirements.txt): where the file is, whether it may read the job's
 * files, the key of the cache entry (requirements-cache.ts) holding the virtual environment they are
 * installed into, and pip's command line. No process is run here; only the file is read.
 *
 * Where: `requirements.txt` beside the playbook only. AWX's `collections/requirements.txt` is no
 * convention of a project's (AWX reads Python requirements from an execution environment's
 * definition, not from the project), and a `roles/requirements.txt` would be a role's own: both
 * are left alone rather than guessed at.
 *
 * The key is the sha256 of what decides what pip installs and that the runner knows without
 * running anything: the environment (name, ansible-core and Python versions, as the probe found
 * them), the file's bytes, the runner's index and find-links settings, and, unless every line is a
 * plain requirement or an option that reads nothing local (isPlainPipRequirements), the digest of
 * every file of the job (manifest sha256s): a wheel beside the playbook, a `-r` file, a folder
 * named by `--find-links ./wheels` or `-e ./pkg`. So two forms share an entry only for a file
 * that means the same in both; a file naming local files shares it with no other form's. A package named by version range is named, not
 * resolved: a new release on the index is not installed until the file changes (pin versions).
 */
import fs from "node:fs";
import path from "node:path";
import { keyHasher, WHOLE_JOB } from "./requirements";

export const PIP_REQUIREMENTS_FILE = "requirements.txt";

/** The job's requirements.txt (a path relative to its folder), when it has one. */
export function findPipRequirementsFile(playbook: string, has: (relativePath: string) => boolean): string | null {
  const folder = path.posix.dirname(path.posix.normalize(playbook));
  const candidate = folder === "." ? PIP_REQUIREMENTS_FILE : path.posix.join(folder, PIP_REQUIREMENTS_FILE);
  return has(candidate) ? candidate : null;
}

/** A distribution's name (PEP 508), or an extra's. */
const NAME = "[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?";
/** One version clause: `==1.2.*`, `>=1.0`, `~=2.1`. */
const SPECIFIER = "(?:===|==|!=|~=|<=|>=|<|>)[ \t]*[A-Za-z0-9.*+!_-]+";
/** `name[extras] <specifiers> ; <markers>`, then only --hash options. Spaces and tabs only: see isPlainPipRequirements. */
const PLAIN_REQUIREMENT = new RegExp(
  `^${NAME}(?:[ \t]*\\[[ \t]*${NAME}(?:[ \t]*,[ \t]*${NAME})*[ \t]*\\])?` +
    `(?:[ \t]*${SPECIFIER}(?:[ \t]*,[ \t]*${SPECIFIER})*)?` +
    `(?:[ \t]*;[ \t]*[A-Za-z0-9_.<>=!~'"() \t-]+?)?` +
    `(?:[ \t]+--hash(?:=|[ \t]+)[a-z0-9]+:[0-9a-fA-F]+)*$`,
);
/** Options that read nothing of the job's folder (an index given by an http(s) URL; the binary choices). */
const HARMLESS_OPTIONS: readonly RegExp[] = [
  /^(?:--pre|--prefer-binary|--require-hashes|--no-index)$/,
  /^--(?:only|no)-binary(?:=|[ \t]+)(?::all:|:none:|[A-Za-z0-9._,-]+)$/,
  // `=` only after a long option: optparse takes `-i=URL`'s value as `=URL`, a folder of the form's when it exists (attack 8).
  /^(?:-i[ \t]+|--index-url(?:=|[ \t]+)|--extra-index-url(?:=|[ \t]+))https?:\/\/[A-Za-z0-9._~:/?#[\]@!&'()*+,;=%-]+$/,
];
/**
 * What makes pip decode the file otherwise than as UTF-8 (pip's auto_decode): a byte order mark,
 * or a PEP 263 declaration (`# -*- coding: utf-7 -*-`, `# vim: set fileencoding=…`) on one of the
 * first two lines. Looked for on every line, not only the first two: a rule that reads less than
 * pip needs no second guess of where pip stops looking.
 */
const CODING_DECLARATION = /coding[:=]/;
// Any byte but tab, line breaks and printable ASCII.
const NOT_ASCII = /[^\t\n\r\x20-\x7e]/;
/** What pip takes for an archive by its name (pip's is_archive_file): a path, then, whatever else the line says. */
const ARCHIVE = /\.(?:whl|zip|tar|tgz|tbz|txz|tlz|gz|bz2|xz|lz|lzma)$/i;
/** Line breaks of Python's str.splitlines() other than \n: pip splits on them, so a line here could be two there. */
// eslint-disable-next-line no-control-regex -- these control characters are what is looked for
const OTHER_LINE_BREAKS = /[\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

/**
 * Whether every line of a requirements.txt is a plain requirement (`name[extras] <version
 * specifiers> ; <markers>`, optionally with `--hash=…`) or an option that reads nothing local
 * (HARMLESS_OPTIONS); blank lines and comments aside. Only such a file means the same in every
 * form, so only its key leaves out the form's files. Anything else may read the job's folder:
 * `-r`/`-c` includes (whose own lines are not read here), `-e ./pkg`, `--find-links ./wheels`,
 * `vendor/pkg`, `pkg @ file:./pkg`, `./pkg[extra]`, a name that is an archive, a line continued
 * with `\`, `${VAR}`, or an option not listed; pip reads a local folder even for a bare name when
 * it looks like a path. Nor a file pip may decode otherwise than this rule reads it: a BOM, a
 * `coding[:=]` anywhere (PEP 263: pip honours it), any byte that is not printable ASCII. Rather than follow each of pip's options (a list that grows with pip),
 * such a file's key holds every file of the job (readPipRequirements).
 */
export function isPlainPipRequirements(bytes: Buffer | string): boolean {
  const raw = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
  // In another encoding the same bytes are other lines: in UTF-7 `+AAo-` is a line break, `+AD0-`
  // a `=` (attack 8), so only ASCII read as ASCII is judged. A BOM is not ASCII.
  const text = raw.toString("latin1");
  if (NOT_ASCII.test(text) || CODING_DECLARATION.test(text)) return false;
  const normalized = text.replace(/\r\n/g, "\n");
  if (OTHER_LINE_BREAKS.test(normalized)) return false;
  for (const written of normalized.split("\n")) {
    // pip's comment: `#` at the start or after whitespace, to the end of the line.
    // Only spaces and tabs trimmed: any other character stays and fails the patterns below.
    const line = written.replace(/(^|[ \t]+)#.*$/, "").replace(/^[ \t]+|[ \t]+$/g, "");
    if (line === "") continue;
    if (line.endsWith("\\")) return false;
    if (line.startsWith("-")) {
      if (!HARMLESS_OPTIONS.some((option) => option.test(line))) return false;
      continue;
    }
    if (!PLAIN_REQUIREMENT.test(line)) return false;
    const requirement = line.split(/[ \t]+--hash/)[0]!;
    // pip reads options from the first word starting with `-` (`pkg ; x -e .`), and takes a name ending like an archive for a file.
    if (/[ \t]-/.test(requirement) || ARCHIVE.test(requirement.split(/[ \t]*;/)[0]!)) return false;
  }
  return true;
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
  /**
   * The digest of every file of the job (manifestDigest of WHOLE_JOB) when the file may read
   * any of them (not isPlainPipRequirements); null for a plain file, whose entry any form shares.
   */
  jobFiles: string | null;
}

/** The cache entry's key: sha256 hex of every input, length-prefixed, and never equal to a requirements.yml key. */
export function pipRequirementsKey(input: PipKeyInput): string {
  const { part, digest } = keyHasher();
  part("kind", "pip");
  // 2: the job's files instead of the local paths parsed from the file (attack 7). 3: a file in
  // another encoding, or `-i=URL`, is no longer plain, and no install runs a form's module as pip
  // (attack 8): an entry of 2 may hold a form's files under a plain file's key, and is never used again.
  part("v", "3");
  part("environment", input.environment);
  part("ansible", input.ansible);
  part("python", input.python ?? "");
  part("index-url", input.indexUrl ?? "");
  part("find-links", input.findLinks ?? "");
  part("file", input.file.path);
  part("bytes", input.file.bytes);
  part("job-files", input.jobFiles ?? "-");
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
 * `digest` gives a path's digest in the job (the job's manifestDigest), here of the whole job
 * (WHOLE_JOB) when the file is not plain (isPlainPipRequirements).
 */
export function readPipRequirements(
  jobDir: string,
  file: string,
  context: Omit<PipKeyInput, "file" | "jobFiles">,
  digest: (relativePath: string) => string | null,
): { file: string; key: string } {
  const bytes = fs.readFileSync(path.join(jobDir, file));
  const jobFiles = isPlainPipRequirements(bytes) ? null : (digest(WHOLE_JOB) ?? "-");
  return { file, key: pipRequirementsKey({ ...context, file: { path: file, bytes }, jobFiles }) };
}
