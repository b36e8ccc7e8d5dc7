/**
 * The pieces of inbound mode that need no process: the RTE's configuration, its TLS pair
 * (generated once, kept private, reused), and the app's proof that it knows the runner's token.
 */
import { X509Certificate } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configurationProblem } from "../../server/hub/inbound-links";
import { runnerEnvironment } from "../../server/local-rte";
import { loadRteEnv } from "../../server/rte/env";
import { GENERATED_CERT, GENERATED_KEY, loadTlsPair, usesTls } from "../../server/rte/tls";
import { InboundProofChecker, PROOF_WINDOW_MS, makeInboundProof } from "../../server/security/inbound-proof";
import { sha256Hex } from "../../server/security/tokens";

const env = (values: Record<string, string>) => loadRteEnv(values as NodeJS.ProcessEnv);

describe("inbound configuration", () => {
  it("needs RTE_ADDRESS, an http(s) URL, and both or neither of RTE_TLS_CERT and RTE_TLS_KEY", () => {
    expect(() => env({ RTE_TOKEN: "t", RTE_MODE: "inbound" })).toThrow(/RTE_ADDRESS: required with RTE_MODE=inbound/);
    expect(() => env({ RTE_TOKEN: "t", RTE_MODE: "inbound", RTE_ADDRESS: "ftp://x:1" })).toThrow(/https:\/\/ \(or http:\/\/\) URL/);
    expect(() => env({ RTE_TOKEN: "t", RTE_MODE: "inbound", RTE_ADDRESS: "https://x:1", RTE_TLS_CERT: "c" })).toThrow(
      /set both or neither/,
    );
    expect(() => env({ RTE_TOKEN: "t", RTE_MODE: "inbound", RTE_ADDRESS: "runner.example" })).toThrow(/https:\/\/ \(or http:\/\/\) URL/);
    // Outbound, the address is only shown on the Runners page: any text, as before.
    expect(env({ RTE_TOKEN: "t", RTE_ADDRESS: "dc2 rack 4" }).RTE_ADDRESS).toBe("dc2 rack 4");
    const https = env({ RTE_TOKEN: "t", RTE_MODE: "inbound", RTE_ADDRESS: "https://runner.example:8443" });
    expect(usesTls(https)).toBe(true);
    expect(usesTls(env({ RTE_TOKEN: "t", RTE_MODE: "inbound", RTE_ADDRESS: "http://runner.example:8000" }))).toBe(false);
    expect(usesTls(env({ RTE_TOKEN: "t", RTE_ADDRESS: "https://runner.example:8443" }))).toBe(false);
  });
});

describe("the inbound RTE's TLS pair", () => {
  it("is generated once (0600 files in a 0700 folder) and reused at the next start", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-tls-"));
    try {
      const e = env({
        RTE_TOKEN: "t",
        RTE_MODE: "inbound",
        RTE_ADDRESS: "https://127.0.0.1:8443",
        RTE_STATE_PATH: path.join(dir, "state"),
      });
      const lines: string[] = [];
      const first = await loadTlsPair(e, (line) => lines.push(line));
      expect(lines.join("\n")).toMatch(/generated a self-signed TLS certificate for 127\.0\.0\.1/);
      expect(first.fingerprint).toBe(new X509Certificate(first.cert).fingerprint256);
      expect(new X509Certificate(first.cert).checkIP("127.0.0.1")).toBe("127.0.0.1");
      for (const file of [GENERATED_CERT, GENERATED_KEY]) {
        expect((fs.statSync(path.join(dir, "state", file)).mode & 0o777).toString(8)).toBe("600");
      }
      expect((fs.statSync(path.join(dir, "state")).mode & 0o777).toString(8)).toBe("700");
      const again = await loadTlsPair(e, (line) => lines.push(line));
      expect(again.fingerprint).toBe(first.fingerprint);
      expect(lines).toHaveLength(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the app's proof of the runner's token", () => {
  const token = "pfr_secret";
  it("is accepted once, from the token's hash, for the named runner, while fresh", () => {
    const checker = new InboundProofChecker(token, "dc1");
    const proof = makeInboundProof(sha256Hex(token), "dc1");
    expect(checker.check(proof)).toBeNull();
    expect(checker.check(proof)).toMatch(/already used/);
    expect(checker.check(makeInboundProof(sha256Hex("pfr_other"), "dc1"))).toMatch(/does not know this runner's token/);
    expect(checker.check(makeInboundProof(sha256Hex(token), "dc2"))).toMatch(/does not know this runner's token/);
    expect(checker.check(makeInboundProof(sha256Hex(token), "dc1", Date.now() - PROOF_WINDOW_MS - 1000))).toMatch(/too old/);
    expect(checker.check({})).toMatch(/no proof/);
  });
});

describe("what keeps the app from connecting to an inbound runner", () => {
  const base = {
    id: "r",
    name: "dc1",
    status: "approved" as const,
    mode: "inbound",
    tokenHash: "h",
    certFingerprint: "AA:BB",
    inboundNoTls: false,
  };
  it("says why, in words for the Runners page", () => {
    expect(configurationProblem({ ...base, address: null })).toMatch(/no address/);
    expect(configurationProblem({ ...base, address: "http://r:8000" })).toMatch(/plain http: .* allows this runner without TLS/);
    expect(configurationProblem({ ...base, address: "http://r:8000", inboundNoTls: true })).toBeNull();
    // Nothing pinned over https: connected to only to learn (and show) what it presents, then refused.
    expect(configurationProblem({ ...base, address: "https://r:8443", certFingerprint: null })).toBeNull();
    expect(configurationProblem({ ...base, address: "https://r:8443" })).toBeNull();
  });
});

describe("the local RTE of npm start", () => {
  it("stays outbound whatever inbound settings the app's environment holds", () => {
    const env = runnerEnvironment({
      PATH: "/usr/bin",
      RTE_MODE: "inbound",
      RTE_ADDRESS: "https://x:1",
      RTE_TLS_CERT: "c",
      RTE_TLS_KEY: "k",
      RTE_RUNNER_NAME: "dc1",
      RTE_TOKEN: "t",
      DATABASE_URL: "file:x",
    });
    expect(env).toEqual({ PATH: "/usr/bin" });
  });

  it("gets what a runner reads and its playbooks may get, never the app's secrets nor what else the app was started with", () => {
    const env = runnerEnvironment({
      PATH: "/usr/bin",
      HOME: "/home/playform",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TZ: "UTC",
      TMPDIR: "/var/tmp",
      https_proxy: "http://proxy:3128",
      LOG_LEVEL: "debug",
      NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
      ANSIBLE_CONFIG: "/etc/ansible.cfg",
      RTE_PLAYBOOK_USER: "",
      RTE_PLAYBOOK_ENV_PASS: "SSH_AUTH_SOCK DATABASE_URL",
      SSH_AUTH_SOCK: "/run/agent.sock",
      PROCESS_MAX_BUFFER: "1000",
      DATABASE_URL: "postgres://u:p@db/playform",
      ENCRYPTION_SECRET: "enc",
      PLAYFORM_ADMIN_PASSWORD: "pw",
      PLAYFORM_FORMS_DIR: "/forms",
      PGPASSWORD: "pg-secret",
      AWS_SECRET_ACCESS_KEY: "aws-secret",
      GITHUB_TOKEN: "ghp_x",
      FOO: "bar",
    });
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/playform",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TZ: "UTC",
      TMPDIR: "/var/tmp",
      https_proxy: "http://proxy:3128",
      LOG_LEVEL: "debug",
      NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
      ANSIBLE_CONFIG: "/etc/ansible.cfg",
      RTE_PLAYBOOK_USER: "",
      // Named to pass: it reaches the RTE, and through it the playbooks. DATABASE_URL does not
      // (the RTE refuses it and says so).
      RTE_PLAYBOOK_ENV_PASS: "SSH_AUTH_SOCK DATABASE_URL",
      SSH_AUTH_SOCK: "/run/agent.sock",
      PROCESS_MAX_BUFFER: "1000",
    });
  });
});
