/**
 * What each environment of the runner (environments.ts) holds, found out at start and reported
 * to the app in `rte:environments` once it is known (the RTE connects without waiting for it):
 * its ansible-core and Python versions and installed collections.
 *
 * The versions come from `ansible-playbook --version`, not from a Python probe with the
 * environment's interpreter: it asks the very program jobs run, so it holds for a virtual
 * environment, a pipx or distribution install and a wrapper script alike (whose interpreter
 * cannot be read from a shebang), and it names the Python ansible actually runs under. Its two
 * lines read here (`ansible-playbook [core X]`, `python version = Y`) have kept their form since
 * ansible-base 2.10 (`ansible-playbook 2.10.17` before `[core]`). The collections come from
 * `ansible-galaxy collection list --format json`, with the environment's extra paths as `-p`
 * (searched besides ansible's own, as they will be for its jobs).
 *
 * Both run as a job's ansible runs: as the playbook user (never as the RTE's root: a bin folder
 * that user could write to must not become code root runs at the next start), with the
 * playbook environment's variables (ANSIBLE_* included), and then with an empty HOME (a job's
 * HOME is its folder), so collections in the RTE user's ~/.ansible are not claimed.
 * A missing program, a failure, a timeout or output that cannot be read is that environment's
 * `error`; the others are still reported.
 */
import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { environmentReportSchema, type EnvironmentReport } from "../protocol/rte-messages";
import type { RteEnvironment } from "./environments";
import { playbookEnv } from "./playbook-command";

/** Each command's limit: ansible takes about a second to start, several on a busy machine. */
export const PROBE_TIMEOUT_MS = 20_000;
/** What is kept of a failed command's output in the error (its last lines say why). */
const MAX_ERROR_CHARS = 500;

export interface ProbeOptions {
  /** The RTE's environment (process.env): filtered as a playbook's (playbookEnv). */
  parentEnv: Readonly<Record<string, string | undefined>>;
  /** RTE_PLAYBOOK_ENV_PASS. */
  pass: readonly string[];
  /** The user playbooks run as (null: the RTE's own): the probes run as it, with an empty HOME of its own. */
  user: { uid: number; gid: number } | null;
  timeoutMs?: number;
}

/**
 * Probes every environment at once; the reports come in the environments' order. Never
 * rejects: whatever goes wrong is an environment's error (the RTE reports it once connected,
 * and must not stop over it).
 */
export async function probeEnvironments(environments: readonly RteEnvironment[], options: ProbeOptions): Promise<EnvironmentReport[]> {
  let home: string | null = null;
  try {
    if (options.user) {
      home = fs.mkdtempSync(path.join(os.tmpdir(), "playform-probe-"));
      fs.chownSync(home, options.user.uid, options.user.gid);
    }
  } catch (error) {
    const why = `no empty HOME for the probe in ${os.tmpdir()}: ${error instanceof Error ? error.message : String(error)}`;
    return environments.map((environment) => brokenReport(environment, why));
  }
  try {
    return await Promise.all(environments.map((environment) => probeChecked(environment, options, home)));
  } finally {
    if (home) fs.rmSync(home, { recursive: true, force: true });
  }
}

/**
 * One environment's report, as the contract allows it: the app ignores a report that does not
 * fit (a version string of a thousand characters, more collections than it takes), so
 * such a report, like a probe that failed unexpectedly, becomes that environment's error.
 */
async function probeChecked(environment: RteEnvironment, options: ProbeOptions, home: string | null): Promise<EnvironmentReport> {
  const broken = (error: string) => brokenReport(environment, error);
  try {
    const report = await probeEnvironment(environment, options, home);
    const checked = environmentReportSchema.safeParse(report);
    if (checked.success) return checked.data;
    const issue = checked.error.issues[0];
    return broken(`its report does not fit the contract's limits (${issue?.path.join(".")}: ${issue?.message})`);
  } catch (error) {
    return broken(`the probe failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** An environment's report before anything was found: its name and description. */
function emptyReport(environment: RteEnvironment): EnvironmentReport {
  return { name: environment.name, description: environment.description, ansibleCore: null, python: null, collections: [], error: null };
}

function brokenReport(environment: RteEnvironment, error: string): EnvironmentReport {
  return { ...emptyReport(environment), error };
}

async function probeEnvironment(environment: RteEnvironment, options: ProbeOptions, home: string | null): Promise<EnvironmentReport> {
  const missing = await missingBinFolder(environment.bin);
  if (missing) return brokenReport(environment, missing);
  const report = emptyReport(environment);
  const env = playbookEnv(
    options.parentEnv,
    { ANSIBLE_NOCOLOR: "1", ANSIBLE_FORCE_COLOR: "0", ...(home ? { HOME: home } : {}) },
    options.pass,
  );
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const run = (program: string, args: string[]) => runProbe({ program, args, env, bin: environment.bin, user: options.user, timeoutMs });
  const galaxyArgs = ["collection", "list", "--format", "json", ...environment.collectionsPaths.flatMap((p) => ["-p", p])];
  const [version, galaxy] = await Promise.all([run("ansible-playbook", ["--version"]), run("ansible-galaxy", galaxyArgs)]);
  const errors: string[] = [];
  if (version.ok) {
    const parsed = parseAnsibleVersion(version.stdout);
    if (parsed) Object.assign(report, parsed);
    else errors.push(`ansible-playbook --version printed no version: ${tail(version.stdout)}`);
  } else errors.push(version.error);
  if (galaxy.ok) {
    const collections = parseCollectionList(galaxy.stdout, environment.collectionsPaths);
    if (collections) report.collections = collections;
    else errors.push(`ansible-galaxy collection list did not print its JSON: ${tail(galaxy.stdout)}`);
  } else if (version.ok) {
    // Without ansible-playbook, ansible-galaxy's failure says the same again.
    errors.push(galaxy.error);
  }
  return { ...report, error: errors.length > 0 ? errors.join("; ") : null };
}

/** Why the environment's folder cannot hold its programs, or null. */
async function missingBinFolder(bin: string | null): Promise<string | null> {
  if (bin === null) return null;
  try {
    if (!(await fs.promises.stat(bin)).isDirectory()) return `${bin} is not a folder`;
  } catch {
    return `the folder ${bin} does not exist`;
  }
  try {
    await fs.promises.access(path.join(bin, "ansible-playbook"), fs.constants.X_OK);
  } catch {
    return `no ansible-playbook in ${bin} (or it is not executable)`;
  }
  return null;
}

type ProbeResult = { ok: true; stdout: string } | { ok: false; error: string };

interface ProbeCommand {
  program: string;
  args: string[];
  env: Record<string, string>;
  bin: string | null;
  user: { uid: number; gid: number } | null;
  timeoutMs: number;
}

async function runProbe({ program, args, env, bin, user, timeoutMs }: ProbeCommand): Promise<ProbeResult> {
  const file = bin === null ? program : path.join(bin, program);
  const command = `${program} ${args.slice(0, 2).join(" ")}`;
  const result = await execa(file, args, {
    env,
    extendEnv: false,
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
    // The RTE's folder may be one the playbook user cannot read; ansible needs none.
    cwd: os.tmpdir(),
    stdin: "ignore",
    reject: false,
    timeout: timeoutMs,
    forceKillAfterDelay: 2_000,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.timedOut) return { ok: false, error: `${command} did not answer within ${timeoutMs / 1000} s` };
  const code = "code" in result ? result.code : undefined;
  if (code === "ENOENT") return { ok: false, error: bin === null ? `${program} is not on PATH` : `no ${program} in ${bin}` };
  if (code === "EACCES") return { ok: false, error: `${file} cannot be run by the user playbooks run as (permission denied)` };
  if (typeof code === "string" && code.startsWith("E")) return { ok: false, error: `${file} cannot be started: ${code}` };
  if (result.exitCode !== 0) {
    const said = tail(result.stderr.trim() || result.stdout.trim()) || "no output";
    return { ok: false, error: `${command} failed (exit ${result.exitCode ?? result.signal ?? "?"}): ${said}` };
  }
  return { ok: true, stdout: result.stdout };
}

/** The last lines of a command's output, short enough for an error message. */
function tail(text: string): string {
  const lines = text.trim().split("\n").slice(-3).join(" ").trim();
  return lines.length > MAX_ERROR_CHARS ? `…${lines.slice(-MAX_ERROR_CHARS)}` : lines;
}

/**
 * ansible-core and Python versions from `ansible-playbook --version`, or null when it names no
 * ansible version. ansible-core 2.11+: `ansible-playbook [core 2.14.18]`; ansible-base 2.10
 * and ansible 2.9: `ansible-playbook 2.10.17`. Python: `  python version = 3.11.2 (main, …)`.
 */
export function parseAnsibleVersion(output: string): { ansibleCore: string; python: string | null } | null {
  const core = /^ansible-playbook (?:\[core ([^\]\s]+)\]|(\d+\.\d+\S*))/m.exec(output);
  const ansibleCore = core?.[1] ?? core?.[2];
  if (!ansibleCore) return null;
  const python = /^\s*python version = (\d+\.\d+(?:\.\d+)?\S*)/m.exec(output)?.[1] ?? null;
  return { ansibleCore, python };
}

const collectionListSchema = z.record(z.string(), z.record(z.string(), z.object({ version: z.string().nullable().optional() }).loose()));

/**
 * The collections of `ansible-galaxy collection list --format json` (`{"<path>": {"ns.name":
 * {"version": "1.2.3"}}}`), one per name, sorted by name; null when it is not that JSON. A
 * collection in several paths is listed with the version ansible loads: the first in the
 * search order, the environment's extra paths first (ansible-galaxy prints its paths in no
 * fixed order). A collection without a version (no galaxy.yml/MANIFEST.json) shows as `*`,
 * as ansible-galaxy's own table shows it.
 */
export function parseCollectionList(stdout: string, extraPaths: readonly string[] = []): { name: string; version: string }[] | null {
  // Its warnings go to stderr; should anything precede the JSON on stdout, the JSON is its last line.
  const json = parseJson(stdout) ?? parseJson(stdout.trim().split("\n").at(-1) ?? "");
  if (json === undefined) return null;
  const parsed = collectionListSchema.safeParse(json);
  if (!parsed.success) return null;
  const rank = (searched: string) => {
    const index = extraPaths.findIndex((p) => searched === p || path.dirname(searched) === p);
    return index === -1 ? extraPaths.length : index;
  };
  const paths = Object.keys(parsed.data).sort((a, b) => rank(a) - rank(b));
  const found = new Map<string, string>();
  for (const searched of paths) {
    for (const [name, info] of Object.entries(parsed.data[searched]!)) if (!found.has(name)) found.set(name, info.version ?? "*");
  }
  return [...found].map(([name, version]) => ({ name, version })).sort((a, b) => a.name.localeCompare(b.name));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
