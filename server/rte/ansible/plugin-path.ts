/**
 * Where the Playform ansible callback plugins and the vault password script live, and the env
 * that enables the plugins.
 *
 * Works from source (tsx: this file is server/rte/ansible/plugin-path.ts) and from a bundle
 * (dist/rte.js: the plugin directory is found by walking up to the project root).
 */
import { accessSync, constants, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The plugin's directory, relative to the project root. */
export const CALLBACK_PLUGIN_SUBDIR = path.join("server", "rte", "ansible", "callback_plugins");
/** Callback plugin name (CALLBACK_NAME in playform_events.py). */
export const EVENTS_CALLBACK_NAME = "playform_events";
const PLUGIN_FILE = `${EVENTS_CALLBACK_NAME}.py`;
/** Enabled callbacks: ours, and profile_tasks so the text keeps its timing summary. */
export const ENABLED_CALLBACKS = `${EVENTS_CALLBACK_NAME},ansible.posix.profile_tasks`;

let cached: string | null = null;

function moduleDir(): string | null {
  try {
    const url = import.meta.url;
    if (typeof url === "string" && url.startsWith("file:")) return path.dirname(fileURLToPath(url));
  } catch {
    // Bundled as CommonJS: no import.meta.url.
  }
  return null;
}

/** The first `<ancestor>/<subdir>` holding `file`, walking up from start. */
function searchUp(start: string, subdir: string, file: string): string | null {
  let dir = path.resolve(start);
  for (;;) {
    const candidate = path.join(dir, subdir);
    if (existsSync(path.join(candidate, file))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function searchStarts(): string[] {
  return [moduleDir(), process.argv[1] ? path.dirname(path.resolve(process.argv[1])) : null, process.cwd()].filter(
    (start): start is string => start !== null,
  );
}

/**
 * Absolute path of the directory holding playform_events.py. `PLAYFORM_CALLBACK_DIR`
 * overrides the search. Throws when the directory cannot be found.
 */
export function callbackPluginDir(): string {
  const override = process.env.PLAYFORM_CALLBACK_DIR;
  if (override) return path.resolve(override);
  if (cached !== null) return cached;
  const starts = searchStarts();
  for (const start of starts) {
    const found = searchUp(start, CALLBACK_PLUGIN_SUBDIR, PLUGIN_FILE);
    if (found) {
      cached = found;
      return found;
    }
  }
  throw new Error(
    `Playform callback plugins not found: no ${CALLBACK_PLUGIN_SUBDIR}/${PLUGIN_FILE} above ` +
      `${starts.join(", ")}; set PLAYFORM_CALLBACK_DIR`,
  );
}

/** The vault password script (see the script for why it exists), relative to the project root. */
const VAULT_SCRIPT_SUBDIR = path.join("server", "rte", "ansible");
const VAULT_SCRIPT_FILE = "vault-password-stdin.sh";

/**
 * Absolute path of vault-password-stdin.sh. Throws when it is missing or not executable:
 * ansible reads a non-executable --vault-password-file as the password itself, and the job
 * would fail with a misleading "Decryption failed".
 */
export function vaultPasswordScript(): string {
  const starts = searchStarts();
  for (const start of starts) {
    const dir = searchUp(start, VAULT_SCRIPT_SUBDIR, VAULT_SCRIPT_FILE);
    if (!dir) continue;
    const script = path.join(dir, VAULT_SCRIPT_FILE);
    try {
      accessSync(script, constants.X_OK);
    } catch {
      throw new Error(`${script} is not executable (chmod 755 it): ansible would read the script itself as the vault password`);
    }
    return script;
  }
  throw new Error(`the vault password script is missing: no ${VAULT_SCRIPT_SUBDIR}/${VAULT_SCRIPT_FILE} above ${starts.join(", ")}`);
}

/**
 * Env vars for ansible-playbook so that the events go to file descriptor `eventsFd` of the
 * child (e.g. 3 with execa `stdio: ['ignore', 'pipe', 'pipe', 'pipe']`). The reader must keep
 * draining that pipe: the run blocks when the pipe is full.
 */
export function ansibleEventEnv(eventsFd: number): Record<string, string> {
  if (!Number.isInteger(eventsFd) || eventsFd < 3) {
    throw new RangeError(`events fd must be an integer >= 3 (0-2 are stdio), got ${eventsFd}`);
  }
  return {
    ANSIBLE_CALLBACK_PLUGINS: callbackPluginDir(),
    ANSIBLE_CALLBACKS_ENABLED: ENABLED_CALLBACKS,
    PLAYFORM_EVENTS_FD: String(eventsFd),
  };
}

const INIT_SCRIPT_FILE = "playbook-init.py";

/**
 * Absolute path of playbook-init.py, which starts ansible-playbook: it hands the job's hidden
 * extravars over through a pipe instead of a file, and is PID 1 of the playbook's pid namespace
 * when the RTE runs playbooks under bubblewrap (server/rte/sandbox.ts). Run with python3.
 */
export function playbookInitScript(): string {
  const starts = searchStarts();
  for (const start of starts) {
    const dir = searchUp(start, VAULT_SCRIPT_SUBDIR, INIT_SCRIPT_FILE);
    if (dir) return path.join(dir, INIT_SCRIPT_FILE);
  }
  throw new Error(`the playbook start script is missing: no ${VAULT_SCRIPT_SUBDIR}/${INIT_SCRIPT_FILE} above ${starts.join(", ")}`);
}
