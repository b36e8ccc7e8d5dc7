/**
 * The ansible-playbook command line and environment for a job. Pure, so the exact argv and
 * the environment filtering are unit-tested without running anything.
 */
import { ANSIBLE_SETTING_NAMES } from "./ansible-settings";
import path from "node:path";
import type { JobOptions } from "../protocol/rte-messages";

export interface CommandInput {
  playbook: string;
  inventories: string[];
  extravarsFile: string;
  hiddenExtravarsFile: string;
  options: JobOptions;
  /** The vault password script (ansible/vault-password-stdin.sh) when the job has a vault password. */
  vaultPasswordScript: string | null;
  /**
   * A preview (job:dispatch `preview`): list the plays, tasks and tags the same options select
   * (`--list-tasks --list-tags`) instead of running anything. Ansible still reads the
   * inventories and extravars (host patterns, `when`-free task lists, vaulted vars files).
   */
  preview?: boolean;
}

export function playbookArgs(input: CommandInput): string[] {
  const args: string[] = [];
  for (const inventory of input.inventories) args.push("-i", inventory);
  args.push("-e", `@${input.extravarsFile}`, "-e", `@${input.hiddenExtravarsFile}`);
  const { options } = input;
  if (options.tags.length > 0) args.push("--tags", options.tags.join(","));
  if (options.skipTags.length > 0) args.push("--skip-tags", options.skipTags.join(","));
  if (options.limit) args.push("--limit", options.limit);
  if (options.check) args.push("--check");
  if (options.diff) args.push("--diff");
  if (options.verbosity > 0) args.push(`-${"v".repeat(options.verbosity)}`);
  // The vault password arrives on stdin, read by the script: never in a file on disk, never in
  // argv (ps shows argv). Not /dev/stdin: see the script for why that fails under Node.
  if (input.vaultPasswordScript) args.push("--vault-password-file", input.vaultPasswordScript);
  if (input.preview) args.push("--list-tasks", "--list-tags");
  args.push(input.playbook);
  return args;
}

/**
 * The program and argv that start ansible-playbook. With a niceness above 0 it starts through
 * coreutils' `nice -n N --`, which lowers its own priority and execs ansible-playbook: same pid,
 * same process group, and everything ansible-playbook forks (workers, ssh, modules) inherits
 * the lower priority from its first instruction on. 0: ansible-playbook itself, at the RTE's
 * priority.
 */
export function playbookCommand(executable: string, args: string[], niceness: number): { file: string; args: string[] } {
  if (niceness === 0) return { file: executable, args };
  return { file: "nice", args: ["-n", String(niceness), "--", executable, ...args] };
}

/**
 * Variables of the RTE's environment a playbook gets, by name: the search path, the home (the
 * playbook user's own when there is one: the caller's `extra` sets it), the locale and time
 * zone, and the proxies in both spellings. Everything else stays with the RTE (see playbookEnv).
 */
export const PLAYBOOK_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "TZ",
  ...["http_proxy", "https_proxy", "no_proxy", "all_proxy"].flatMap((name) => [name, name.toUpperCase()]),
];

/**
 * ANSIBLE_* settings of the RTE's environment a playbook does not get: those that name a vault
 * or a password or hold a token or secret (ANSIBLE_VAULT_PASSWORD_FILE, ANSIBLE_VAULT_IDENTITY_LIST,
 * ANSIBLE_BECOME_PASSWORD_FILE, ANSIBLE_CONNECTION_PASSWORD_FILE, ANSIBLE_GALAXY_TOKEN,
 * ANSIBLE_GALAXY_SERVER_<ID>_TOKEN or _PASSWORD...). The runner's vault and become passwords are
 * not a form's: a job gets the vault password of its own credential (--vault-password-file).
 * RTE_PLAYBOOK_ENV_PASS may still name one, on purpose.
 */
export function isSecretAnsibleSetting(name: string): boolean {
  if (!name.startsWith("ANSIBLE_")) return false;
  // The runner's own ssh key (ANSIBLE_PRIVATE_KEY_FILE): ansible reads it as the playbook user,
  // so every playbook could print it. A form that needs a key names an ssh credential.
  if (name.includes("_PRIVATE_KEY")) return true;
  return name.split("_").some((word) => ["VAULT", "PASSWORD", "PASS", "SECRET", "TOKEN"].includes(word));
}

/**
 * Shapes of a value that carry a credential, whatever the variable's name (attacks 3 and 4 on
 * issue 34): a URL with a user part (`https://user:pw@`, or a token alone: `https://TOKEN@`),
 * anywhere in the value (a list of inventories); `user:password@host` without a scheme; a query
 * string naming a token, password, key, secret, signature or credential; `sshpass -p` in ssh
 * arguments; and a cache connection (ANSIBLE_CACHE_PLUGIN_CONNECTION,
 * ANSIBLE_INVENTORY_CACHE_CONNECTION) that is not a plain path: redis' `host:port:db:password`,
 * memcached's and mongodb's URLs.
 */
const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /[a-z][a-z0-9+.-]*:\/\/[^/@\s]+@/i,
  /(?:^|[\s,;="'])[^\s/@:,;="']+:[^\s/@,;="']+@[^\s/@]/,
  /[?&;][a-z0-9_.-]*(?:token|passw|pwd|secret|key|auth|signature|sig|credential)[a-z0-9_.-]*=/i,
  /\bsshpass\b/,
];

function holdsCredential(name: string, value: string): boolean {
  if (/_CACHE(?:_PLUGIN)?_CONNECTION$/.test(name) && /[:@]/.test(value)) return true;
  return CREDENTIAL_SHAPES.some((shape) => shape.test(value));
}

/**
 * Whether the runner's ANSIBLE_* variable `name` (with `value`) reaches playbooks by itself: it
 * must be a setting of ansible-core (ANSIBLE_SETTING_NAMES: config/base.yml and its built-in
 * plugins' options), not one of isSecretAnsibleSetting, and its value no credential's shape
 * (CREDENTIAL_SHAPES).
 * Anything else an operator keeps in ANSIBLE_* (a collection's ANSIBLE_NET_PASSWORD, a
 * cloud's API key, ANSIBLE_GALAXY_SERVER_<ID>_URL with credentials) stays with the runner
 * unless RTE_PLAYBOOK_ENV_PASS names it; the RTE says at start which it keeps back.
 */
export function isPassedAnsibleSetting(name: string, value: string): boolean {
  return ANSIBLE_SETTING_NAMES.has(name) && !isSecretAnsibleSetting(name) && !holdsCredential(name, value);
}

/** The ANSIBLE_* variables of `parent` that playbooks do not get (for the RTE's start-up log). */
export function ansibleSettingsKeptBack(parent: Readonly<Record<string, string | undefined>>, pass: readonly string[] = []): string[] {
  return Object.entries(parent)
    .filter(
      ([name, value]) => name.startsWith("ANSIBLE_") && value !== undefined && !pass.includes(name) && !isPassedAnsibleSetting(name, value),
    )
    .map(([name]) => name)
    .sort();
}

/**
 * The playbook's environment: an allow list, never the RTE's whole environment. A playbook runs
 * arbitrary code (so does an inventory plugin); whatever the RTE process was started with
 * (PGPASSWORD, AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, a cloud's credentials, the runner's token)
 * must not reach it unless the operator names it. It gets:
 *
 * - PLAYBOOK_ENV_NAMES and LC_* (path, home, locale, time zone, proxies);
 * - ANSIBLE_* settings of ansible-core (the operator's configuration of ansible on this runner),
 *   as isPassedAnsibleSetting decides: not the secret ones, not other ANSIBLE_* variables;
 * - `pass`: the names in RTE_PLAYBOOK_ENV_PASS, the operator's choice (validated in env.ts);
 * - the runner's own ANSIBLE_* defaults, PYTHONUNBUFFERED, and `extra`: what the RTE sets for
 *   this run (the callback plugin's fd, the run id, the playbook user's HOME, USER, temp dirs).
 *
 * The form's credentials reach the playbook as extravars, not through the environment.
 */
export function playbookEnv(
  parent: Readonly<Record<string, string | undefined>>,
  extra: Record<string, string>,
  pass: readonly string[] = [],
): Record<string, string> {
  const allowed = new Set([...PLAYBOOK_ENV_NAMES, ...pass]);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    const ansible = key.startsWith("ANSIBLE_") && isPassedAnsibleSetting(key, value);
    if (allowed.has(key) || key.startsWith("LC_") || ansible) env[key] = value;
  }
  return {
    ...env,
    // Python buffers a piped stdout: without this, output arrives at the end, not live.
    PYTHONUNBUFFERED: "1",
    ANSIBLE_FORCE_COLOR: env.ANSIBLE_FORCE_COLOR ?? "1",
    ANSIBLE_HOST_KEY_CHECKING: env.ANSIBLE_HOST_KEY_CHECKING ?? "False",
    ANSIBLE_RETRY_FILES_ENABLED: "False",
    ...extra,
  };
}

/** What of an environment (environments.ts) a job's commands use: where its programs are, its extra paths. */
export interface CommandEnvironment {
  bin: string | null;
  collectionsPaths: readonly string[];
  rolesPaths: readonly string[];
  /** Only the built-in default environment's: ANSIBLE_PLAYBOOK, run exactly as configured. */
  ansiblePlaybook?: string;
}

/** ansible's own search paths, kept after an environment's when the runner sets none (docs/rte.md). */
const ANSIBLE_DEFAULT_PATHS = {
  ANSIBLE_COLLECTIONS_PATH: "~/.ansible/collections:/usr/share/ansible/collections",
  ANSIBLE_ROLES_PATH: "~/.ansible/roles:/usr/share/ansible/roles:/etc/ansible/roles",
};

/**
 * The file that starts `program` of an environment: the one in its bin folder. The built-in
 * default environment keeps ANSIBLE_PLAYBOOK exactly as configured (a name looked up on PATH,
 * or a path whose file name need not be `ansible-playbook`) and the ansible-inventory beside it.
 */
export function environmentProgram(
  environment: CommandEnvironment,
  program: "ansible-playbook" | "ansible-inventory" | "ansible-galaxy",
): string {
  const configured = environment.ansiblePlaybook;
  if (configured !== undefined || environment.bin === null) {
    const ansiblePlaybook = configured ?? "ansible-playbook";
    if (program === "ansible-playbook") return ansiblePlaybook;
    return ansiblePlaybook.includes("/") ? path.join(path.dirname(ansiblePlaybook), program) : program;
  }
  return path.join(environment.bin, program);
}

/** The folders a job's installed requirements.yml is in (requirements-cache.ts): searched before anything else. */
export interface RequirementsPaths {
  collections: readonly string[];
  roles: readonly string[];
}

/**
 * A command's environment (playbookEnv's result) in an environment of RTE_ENVIRONMENTS: its
 * bin folder first on PATH (what the playbook runs by name on the runner, ansible-galaxy or the
 * virtual environment's python, is the environment's), and its collection and role folders
 * before those the runner sets (ANSIBLE_COLLECTIONS_PATH, ANSIBLE_ROLES_PATH), or before
 * ansible's own when it sets none: setting the variable replaces ansible's default search path.
 * Unchanged for the built-in default environment. `requirements`: the job's installed
 * requirements.yml, searched first of all (before the environment's own folders): what the form
 * asked for wins over what the runner happens to have.
 */
export function environmentEnv(
  env: Readonly<Record<string, string>>,
  environment: CommandEnvironment,
  requirements: RequirementsPaths | null = null,
): Record<string, string> {
  const result = { ...env };
  if (environment.bin !== null && environment.ansiblePlaybook === undefined) {
    result.PATH = [environment.bin, env.PATH].filter((p) => p !== undefined && p !== "").join(":");
  }
  const prepend = (name: keyof typeof ANSIBLE_DEFAULT_PATHS, folders: readonly string[], older?: string) => {
    if (folders.length === 0) return;
    const current = env[name] ?? (older !== undefined ? env[older] : undefined) ?? ANSIBLE_DEFAULT_PATHS[name];
    result[name] = [...folders, current].join(":");
  };
  // ANSIBLE_COLLECTIONS_PATHS: the older spelling, which the runner may still set.
  prepend("ANSIBLE_COLLECTIONS_PATH", [...(requirements?.collections ?? []), ...environment.collectionsPaths], "ANSIBLE_COLLECTIONS_PATHS");
  prepend("ANSIBLE_ROLES_PATH", [...(requirements?.roles ?? []), ...environment.rolesPaths]);
  return result;
}

/** The folders an environment's commands read: the sandbox keeps them reachable (sandbox.ts, preparePrivateTmp). */
export function environmentFolders(environment: CommandEnvironment): string[] {
  return [...(environment.bin !== null ? [environment.bin] : []), ...environment.collectionsPaths, ...environment.rolesPaths];
}
