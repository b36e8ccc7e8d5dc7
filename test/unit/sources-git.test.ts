/**
 * Git sources: the webhook signature checks of the three forges, and the git command line
 * (safe settings, no prompts, strict host keys, the token never in an argument).
 */
import { createHmac } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGitCommand, maskSecrets, runGit, tokenHeader } from "../../server/sources/git";
import { webhookSignatureValid } from "../../server/security/webhook-signature";
import { createSourceSchema } from "../../server/sources/sources";

const body = Buffer.from('{"ref":"refs/heads/main"}');
const secret = "s3cret-webhook";
const hmac = (key: string) => createHmac("sha256", key).update(body).digest("hex");
const headers = (values: Record<string, string>) => (name: string) => values[name.toLowerCase()] ?? null;

describe("webhook signatures", () => {
  it("accepts GitHub's X-Hub-Signature-256, Gitea's X-Gitea-Signature and GitLab's X-Gitlab-Token", () => {
    expect(webhookSignatureValid(headers({ "x-hub-signature-256": `sha256=${hmac(secret)}` }), body, secret)).toBe(true);
    expect(webhookSignatureValid(headers({ "x-hub-signature-256": `sha256=${hmac(secret).toUpperCase()}` }), body, secret)).toBe(true);
    expect(webhookSignatureValid(headers({ "x-gitea-signature": hmac(secret) }), body, secret)).toBe(true);
    expect(webhookSignatureValid(headers({ "x-gitlab-token": secret }), body, secret)).toBe(true);
  });

  it("refuses a wrong key, another body, a missing prefix, a wrong token, no header and an empty secret", () => {
    expect(webhookSignatureValid(headers({ "x-hub-signature-256": `sha256=${hmac("other")}` }), body, secret)).toBe(false);
    expect(webhookSignatureValid(headers({ "x-hub-signature-256": `sha256=${hmac(secret)}` }), Buffer.from("{}"), secret)).toBe(false);
    expect(webhookSignatureValid(headers({ "x-hub-signature-256": hmac(secret) }), body, secret)).toBe(false);
    expect(webhookSignatureValid(headers({ "x-gitea-signature": `sha256=${hmac(secret)}` }), body, secret)).toBe(false);
    expect(webhookSignatureValid(headers({ "x-gitlab-token": `${secret}x` }), body, secret)).toBe(false);
    expect(webhookSignatureValid(headers({}), body, secret)).toBe(false);
    expect(webhookSignatureValid(headers({ "x-gitlab-token": "" }), body, "")).toBe(false);
  });
});

describe("git command line", () => {
  const knownHostsFile = "/var/lib/playform/known hosts";

  it("never prompts, ignores hooks, helpers and submodules, and checks host keys strictly", () => {
    const command = buildGitCommand(["fetch", "--", "https://git.example/repo.git", "main"], { kind: "none" }, { knownHostsFile });
    expect(command.args.slice(-4)).toEqual(["fetch", "--", "https://git.example/repo.git", "main"]);
    const settings = command.args.filter((_, i) => command.args[i - 1] === "-c");
    expect(settings).toEqual(
      expect.arrayContaining(["core.hooksPath=/dev/null", "credential.helper=", "protocol.ext.allow=never", "submodule.recurse=false"]),
    );
    expect(command.env).toMatchObject({ GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "", GIT_CONFIG_NOSYSTEM: "1" });
    expect(command.env.GIT_SSH_COMMAND).toContain("-o StrictHostKeyChecking=yes");
    expect(command.env.GIT_SSH_COMMAND).toContain("-o BatchMode=yes");
    expect(command.env.GIT_SSH_COMMAND).toContain(`-o UserKnownHostsFile='${knownHostsFile}'`);
    expect(command.env.GIT_CONFIG_COUNT).toBeUndefined();
  });

  it("passes an https token as an http.extraHeader of the source's origin in the environment, never in an argument", () => {
    const token = "ghp_VerySecretToken123";
    const command = buildGitCommand(
      ["fetch", "--", "https://git.example/repo.git"],
      { kind: "token", token, url: "https://git.example/repo.git" },
      { knownHostsFile },
    );
    const argv = command.args.join(" ");
    expect(argv).not.toContain(token);
    expect(argv).not.toContain(Buffer.from(`x-access-token:${token}`).toString("base64"));
    expect(argv).not.toContain("extraHeader");
    // Scoped to the source's origin (git's http.<url>.* settings), never a plain http.extraHeader.
    expect(command.env).toMatchObject({
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.https://git.example/.extraHeader",
      GIT_CONFIG_VALUE_0: tokenHeader(token),
    });
    // A redirect is an error: git would otherwise carry on at the address it was sent to.
    expect(command.args.filter((_, i) => command.args[i - 1] === "-c")).toContain("http.followRedirects=false");
    // Whatever git says is masked: the token and the header's value.
    const said = `fatal: header ${tokenHeader(token)} refused for ${token}`;
    expect(maskSecrets(said, command.secrets)).toBe("fatal: header Authorization: Basic ******** refused for ********");
  });

  it("names the ssh key file with IdentitiesOnly, and only for an ssh key", () => {
    const command = buildGitCommand(["fetch"], { kind: "ssh", privateKey: "KEY" }, { knownHostsFile, sshKeyFile: "/tmp/x/key" });
    expect(command.env.GIT_SSH_COMMAND).toContain("-i '/tmp/x/key'");
    expect(command.env.GIT_SSH_COMMAND).toContain("IdentitiesOnly=yes");
    expect(JSON.stringify(command)).not.toContain('KEY"');
    expect(() => buildGitCommand(["fetch"], { kind: "ssh", privateKey: "KEY" }, { knownHostsFile })).toThrow();
  });
});

describe("a source's settings", () => {
  const base = { name: "ops", url: "https://git.example/ops.git" };

  it("takes https, ssh, scp-like, file URLs and absolute paths, branch or tag names and a folder inside the repository", () => {
    for (const url of [
      "https://git.example/ops.git",
      "ssh://git@git.example/ops.git",
      "git@git.example:ops/playbooks.git",
      "file:///srv/ops.git",
      "/srv/ops.git",
    ]) {
      expect(createSourceSchema.safeParse({ ...base, url }).success, url).toBe(true);
    }
    expect(createSourceSchema.parse({ ...base, ref: "release/1.2", formsPath: "./forms/" })).toMatchObject({
      ref: "release/1.2",
      formsPath: "forms",
    });
  });

  it("refuses a token in the URL, an option for a URL or ref, another transport, and a folder outside the repository", () => {
    const refused = (input: object) => !createSourceSchema.safeParse({ ...base, ...input }).success;
    expect(refused({ url: "https://me:ghp_token@git.example/ops.git" })).toBe(true);
    expect(refused({ url: "--upload-pack=touch /tmp/x" })).toBe(true);
    expect(refused({ url: "ext::sh -c touch% /tmp/x" })).toBe(true);
    expect(refused({ url: "relative/path" })).toBe(true);
    // A user or host starting with '-' would reach ssh as an option: refused at registration.
    expect(refused({ url: "ssh://-oProxyCommand=touch%20/tmp/x/ops.git" })).toBe(true);
    expect(refused({ url: "ssh://git@-oProxyCommand=x/ops.git" })).toBe(true);
    expect(refused({ url: "ssh://-oProxyCommand=x@git.example/ops.git" })).toBe(true);
    expect(refused({ url: "git@-oProxyCommand=x:ops.git" })).toBe(true);
    expect(refused({ url: "-oProxyCommand=x@git.example:ops.git" })).toBe(true);
    expect(refused({ url: "https://-git.example/ops.git" })).toBe(true);
    const hostMessage = createSourceSchema.safeParse({ ...base, url: "ssh://-oProxyCommand=x/ops.git" }).error?.issues[0];
    expect(hostMessage?.path).toEqual(["url"]);
    expect(hostMessage?.message).toMatch(/starting with '-'/);
    const scpMessage = createSourceSchema.safeParse({ ...base, url: "git@-oProxyCommand=x:ops.git" }).error?.issues[0];
    expect(scpMessage?.message).toMatch(/starting with '-'/);
    expect(refused({ ref: "--upload-pack=x" })).toBe(true);
    expect(refused({ ref: "main..other" })).toBe(true);
    expect(refused({ formsPath: "../elsewhere" })).toBe(true);
    expect(refused({ formsPath: "/etc" })).toBe(true);
    expect(refused({ name: "Bad Name" })).toBe(true);
    expect(refused({ extra: true })).toBe(true);
  });
});

describe("a token and redirects", () => {
  // Two local servers: `first` answers every request with a redirect to `second`, which serves
  // a bare repository over git's dumb http protocol (plain files: no git server needed). git
  // must stop at the redirect, and `second` must never see the token.
  const token = "ghp_RedirectedToken456";
  let root: string;
  let first: http.Server;
  let second: http.Server;
  const seen: { server: "first" | "second"; url: string; authorization: string | undefined }[] = [];

  const listen = (server: http.Server) =>
    new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "playform-git-redirect-"));
    const bare = path.join(root, "repo.git");
    const work = path.join(root, "work");
    await execa("git", ["init", "-q", "--bare", "--initial-branch=main", bare]);
    await execa("git", ["init", "-q", "--initial-branch=main", work]);
    fs.writeFileSync(path.join(work, "file.txt"), "hello\n");
    const git = (...args: string[]) => execa("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: work });
    await git("add", "-A");
    await git("commit", "-q", "-m", "one");
    await git("push", "-q", bare, "HEAD:main");
    await execa("git", ["--git-dir", bare, "update-server-info"]);
    second = http.createServer((request, response) => {
      seen.push({ server: "second", url: request.url ?? "", authorization: request.headers.authorization });
      const file = path.join(root, decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname));
      if (!file.startsWith(`${bare}${path.sep}`) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { "content-type": "application/octet-stream" }).end(fs.readFileSync(file));
    });
    const secondPort = await listen(second);
    first = http.createServer((request, response) => {
      seen.push({ server: "first", url: request.url ?? "", authorization: request.headers.authorization });
      response.writeHead(302, { location: `http://localhost:${secondPort}${request.url ?? "/"}` }).end();
    });
    await listen(first);
  });
  afterAll(async () => {
    await Promise.all([first, second].map((server) => new Promise((resolve) => server?.close(resolve))));
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it("sends the token to the source's origin only, and treats a redirect as an error", async () => {
    const url = `http://127.0.0.1:${(first.address() as { port: number }).port}/repo.git`;
    const repo = path.join(root, "cache.git");
    await execa("git", ["init", "-q", "--bare", repo]);
    const fetched = runGit(
      ["--git-dir", repo, "fetch", "--quiet", "--", url, "main"],
      { kind: "token", token, url },
      {
        cwd: root,
        knownHostsFile: "/dev/null",
        timeoutMs: 60_000,
      },
    );
    await expect(fetched).rejects.toThrow(/git fetch failed/);
    // The source's origin got the header (the token is sent where it belongs)...
    const header = tokenHeader(token).slice("Authorization: ".length);
    expect(seen.filter((r) => r.server === "first").map((r) => r.authorization)).toContain(header);
    // ...and the address it redirects to never saw it: git did not follow.
    expect(seen.filter((r) => r.server === "second" && r.authorization !== undefined)).toEqual([]);
    expect(seen.filter((r) => r.server === "second")).toEqual([]);
  });
});
