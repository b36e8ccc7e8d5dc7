/**
 * The system `git`, run for a source: through execa (no shell), with a timeout, never asking
 * anything (no terminal prompt, no askpass, ssh in batch mode), ignoring the user's and the
 * system's git configuration (no credential helper, no hooks, no submodules), and checking ssh
 * host keys against the known_hosts file the admin manages (StrictHostKeyChecking=yes).
 *
 * Secrets never reach an argument list, the URL or .git/config: an https token goes in an
 * `http.<origin>/.extraHeader` (sent to the source's scheme, host and port only) passed through
 * git's GIT_CONFIG_COUNT environment (the `-c` of that one command, invisible in `ps`), an ssh
 * key in a 0600 temporary file removed after the command. Redirects are errors, so the header
 * never follows one.
 * Whatever git prints is masked before it is shown or logged.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";

/** How long one git command may run before it is killed. */
export const GIT_TIMEOUT_MS = 5 * 60 * 1000;

/** A token is for one URL (the source's): its header goes to that URL's origin only. */
export type GitAuth = { kind: "none" } | { kind: "token"; token: string; url: string } | { kind: "ssh"; privateKey: string };

export interface GitCommand {
  args: string[];
  env: Record<string, string>;
  /** Values to mask in anything git prints. */
  secrets: string[];
}

/** Settings every command gets on its command line: none of them is secret. */
const SAFE_CONFIG = [
  "core.hooksPath=/dev/null",
  "credential.helper=",
  "protocol.ext.allow=never",
  "submodule.recurse=false",
  "fetch.recurseSubmodules=false",
  // A symbolic link checks out as a plain file holding its target: nothing in a checkout can
  // point at a file of the app's host.
  "core.symlinks=false",
  // A redirect is an error. git's default (`initial`) follows the first request's redirect and
  // then goes on at the address it was sent to, with the token's header; `false` also stops
  // http alternates, which point elsewhere the same way. A moved repository is registered at
  // its new address.
  "http.followRedirects=false",
];

/**
 * The config key of the token's header: `http.<origin>/.extraHeader`, which git applies only to
 * URLs of that scheme, host and port (an `http.extraHeader` goes to any URL the command opens).
 */
export function tokenHeaderKey(url: string): string {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    throw new GitError(`a token is sent over https only, and "${url}" is not an https:// URL`);
  }
  if (!/^https?:\/\/[^/]+$/.test(origin)) throw new GitError(`a token is sent over https only, and "${url}" is not an https:// URL`);
  return `http.${origin}/.extraHeader`;
}

/** The value of the Authorization header git sends for an https token (user name ignored by GitHub, GitLab, Gitea). */
export function tokenHeader(token: string): string {
  return `Authorization: Basic ${Buffer.from(`x-access-token:${token}`, "utf8").toString("base64")}`;
}

/**
 * The argument list and environment of one git command. `sshKeyFile` is where the caller wrote
 * the ssh key (kind ssh); `knownHostsFile` the known_hosts ssh checks host keys against.
 */
export function buildGitCommand(
  args: readonly string[],
  auth: GitAuth,
  options: { knownHostsFile: string; sshKeyFile?: string },
): GitCommand {
  const env: Record<string, string> = {
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    SSH_ASKPASS_REQUIRE: "never",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_SSH_VARIANT: "ssh",
    LC_ALL: "C",
  };
  const ssh = [
    "ssh",
    "-o BatchMode=yes",
    "-o StrictHostKeyChecking=yes",
    `-o UserKnownHostsFile=${shellQuote(options.knownHostsFile)}`,
    "-o GlobalKnownHostsFile=/dev/null",
  ];
  if (auth.kind === "ssh") {
    if (!options.sshKeyFile) throw new Error("an ssh key needs sshKeyFile");
    ssh.push("-o IdentitiesOnly=yes", `-i ${shellQuote(options.sshKeyFile)}`);
  }
  env.GIT_SSH_COMMAND = ssh.join(" ");
  const secrets: string[] = [];
  if (auth.kind === "token") {
    const header = tokenHeader(auth.token);
    env.GIT_CONFIG_COUNT = "1";
    env.GIT_CONFIG_KEY_0 = tokenHeaderKey(auth.url);
    env.GIT_CONFIG_VALUE_0 = header;
    secrets.push(auth.token, header.slice("Authorization: Basic ".length));
  }
  return { args: [...SAFE_CONFIG.flatMap((setting) => ["-c", setting]), ...args], env, secrets };
}

/** GIT_SSH_COMMAND is run by a shell: paths are quoted. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) if (secret) masked = masked.split(secret).join("********");
  return masked;
}

export class GitError extends Error {}

/** The git command's name for messages: the first argument that is neither an option nor an option's value. */
function commandName(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--git-dir" || args[i] === "--work-tree") i++;
    else if (!args[i]!.startsWith("-")) return args[i]!;
  }
  return "git";
}

/**
 * Runs git with `args` (after the safe settings), in `cwd`. The ssh key, if any, lives in a
 * 0600 file of a private temporary folder for the command's duration. Returns stdout; a
 * failure throws GitError with git's (masked) message.
 */
export async function runGit(
  args: readonly string[],
  auth: GitAuth,
  options: { cwd: string; knownHostsFile: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<string> {
  let keyDir: string | null = null;
  try {
    let sshKeyFile: string | undefined;
    if (auth.kind === "ssh") {
      keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-git-"));
      sshKeyFile = path.join(keyDir, "key");
      fs.writeFileSync(sshKeyFile, auth.privateKey, { mode: 0o600 });
    }
    const command = buildGitCommand(args, auth, { knownHostsFile: options.knownHostsFile, sshKeyFile });
    const result = await execa("git", command.args, {
      cwd: options.cwd,
      env: { ...command.env, ...options.env },
      extendEnv: true,
      stdin: "ignore",
      timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
      reject: false,
      stripFinalNewline: true,
    });
    if (result.timedOut)
      throw new GitError(`git ${commandName(args)} took longer than ${Math.round((options.timeoutMs ?? GIT_TIMEOUT_MS) / 1000)} s`);
    if (result.exitCode !== 0) {
      const said = maskSecrets(String(result.stderr || result.stdout || "").trim(), command.secrets);
      throw new GitError(`git ${commandName(args)} failed: ${said.split("\n").slice(-5).join(" ") || `exit code ${result.exitCode}`}`);
    }
    return String(result.stdout);
  } finally {
    if (keyDir) fs.rmSync(keyDir, { recursive: true, force: true });
  }
}
