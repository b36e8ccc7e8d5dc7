/**
 * The ansible-playbook command line and environment for a job. Pure, so the exact argv and
 * the environment filtering are unit-tested without running anything.
 */
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
 * The playbook's environment: the RTE's own minus everything the app or the RTE reads
 * (tokens, database URLs, encryption secrets). A playbook runs arbitrary code; it must not be
 * able to read the runner's token and impersonate it.
 */
export function playbookEnv(
  parent: Readonly<Record<string, string | undefined>>,
  ownVariables: readonly string[],
  extra: Record<string, string>,
): Record<string, string> {
  const blocked = new Set([...ownVariables, "DATABASE_URL", "ENCRYPTION_SECRET", "PLAYFORM_ADMIN_PASSWORD", "NODE_OPTIONS"]);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined || blocked.has(key) || key.startsWith("PLAYFORM_") || key.startsWith("RTE_")) continue;
    env[key] = value;
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
