import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { jobOptionsSchema } from "../../server/protocol/rte-messages";
import { vaultPasswordScript } from "../../server/rte/ansible/plugin-path";
import { RTE_OWN_VARIABLES } from "../../server/rte/env";
import { playbookArgs, playbookCommand, playbookEnv, type CommandInput } from "../../server/rte/playbook-command";

const base: CommandInput = {
  playbook: "site.yml",
  inventories: [],
  extravarsFile: "/work/extravars/extravars_12.json",
  hiddenExtravarsFile: "/work/extravars/.extravars_12_hidden.json",
  options: jobOptionsSchema.parse({}),
  vaultPasswordScript: null,
};
const SCRIPT = "/app/server/rte/ansible/vault-password-stdin.sh";

describe("playbookArgs", () => {
  it("passes both extravars files with -e @file and the playbook last", () => {
    expect(playbookArgs(base)).toEqual([
      "-e",
      "@/work/extravars/extravars_12.json",
      "-e",
      "@/work/extravars/.extravars_12_hidden.json",
      "site.yml",
    ]);
  });

  it("lists tasks and tags instead of running for a preview, with the same options", () => {
    const options = jobOptionsSchema.parse({ tags: ["web"], limit: "db", check: true });
    expect(playbookArgs({ ...base, options, inventories: ["hosts.ini"], preview: true })).toEqual([
      "-i",
      "hosts.ini",
      "-e",
      "@/work/extravars/extravars_12.json",
      "-e",
      "@/work/extravars/.extravars_12_hidden.json",
      "--tags",
      "web",
      "--limit",
      "db",
      "--check",
      "--list-tasks",
      "--list-tags",
      "site.yml",
    ]);
  });

  it("builds the exact argv for every option", () => {
    expect(
      playbookArgs({
        ...base,
        playbook: "plays/deploy.yml",
        inventories: ["inventories/prod.ini", "inventories/extra hosts.yml"],
        options: jobOptionsSchema.parse({
          tags: ["web", "db"],
          skipTags: ["slow"],
          limit: "web*:!web3",
          check: true,
          diff: true,
          verbosity: 3,
        }),
        vaultPasswordScript: SCRIPT,
      }),
    ).toEqual([
      "-i",
      "inventories/prod.ini",
      "-i",
      "inventories/extra hosts.yml",
      "-e",
      "@/work/extravars/extravars_12.json",
      "-e",
      "@/work/extravars/.extravars_12_hidden.json",
      "--tags",
      "web,db",
      "--skip-tags",
      "slow",
      "--limit",
      "web*:!web3",
      "--check",
      "--diff",
      "-vvv",
      "--vault-password-file",
      SCRIPT,
      "plays/deploy.yml",
    ]);
  });

  it("maps verbosity 1 and 5 to -v and -vvvvv, and 0 to nothing", () => {
    expect(playbookArgs({ ...base, options: jobOptionsSchema.parse({ verbosity: 1 }) })).toContain("-v");
    expect(playbookArgs({ ...base, options: jobOptionsSchema.parse({ verbosity: 5 }) })).toContain("-vvvvv");
    expect(playbookArgs({ ...base, options: jobOptionsSchema.parse({ verbosity: 0 }) }).some((a) => /^-v+$/.test(a))).toBe(false);
  });

  it("never puts the vault password itself in argv: the script reads it from stdin", () => {
    const args = playbookArgs({ ...base, vaultPasswordScript: SCRIPT });
    expect(args.slice(-3)).toEqual(["--vault-password-file", SCRIPT, "site.yml"]);
  });

  it("ships an executable vault password script (a plain file would be read as the password)", () => {
    const script = vaultPasswordScript();
    expect(script.endsWith("server/rte/ansible/vault-password-stdin.sh")).toBe(true);
    expect(fs.statSync(script).mode & 0o111).not.toBe(0);
  });
});

describe("playbookCommand", () => {
  const args = ["-i", "inventory.ini", "site.yml"];

  it("starts ansible-playbook through nice -n N (RTE_PLAYBOOK_NICE), which execs it: same pid, same group", () => {
    expect(playbookCommand("ansible-playbook", args, 10)).toEqual({
      file: "nice",
      args: ["-n", "10", "--", "ansible-playbook", "-i", "inventory.ini", "site.yml"],
    });
    expect(playbookCommand("/opt/ansible/bin/ansible-playbook", ["site.yml"], 19)).toEqual({
      file: "nice",
      args: ["-n", "19", "--", "/opt/ansible/bin/ansible-playbook", "site.yml"],
    });
  });

  it("starts ansible-playbook itself with 0 (the RTE's own priority)", () => {
    expect(playbookCommand("ansible-playbook", args, 0)).toEqual({ file: "ansible-playbook", args });
  });
});

describe("playbookEnv", () => {
  const parent = {
    PATH: "/usr/local/bin:/usr/bin",
    HOME: "/home/rte",
    LANG: "C.UTF-8",
    HTTPS_PROXY: "http://proxy:3128",
    https_proxy: "http://proxy:3128",
    NO_PROXY: "localhost",
    ANSIBLE_CONFIG: "/etc/ansible/custom.cfg",
    ANSIBLE_ROLES_PATH: "/roles",
    RTE_TOKEN: "pfr_secret",
    RTE_INSTANCE_ID: "rte-0",
    RTE_SOMETHING_NEW: "x",
    APP_URL: "https://playform.example",
    PORT: "8000",
    PROCESS_MAX_BUFFER: "1000",
    DATABASE_URL: "postgres://u:p@db/playform",
    ENCRYPTION_SECRET: "enc",
    PLAYFORM_ADMIN_PASSWORD: "admin-pw",
    PLAYFORM_ROLE: "rte",
    NODE_OPTIONS: "--inspect",
    PYTHONUNBUFFERED: "0",
    UNSET: undefined,
  } as Record<string, string | undefined> as NodeJS.ProcessEnv;

  it("keeps PATH, proxies and ANSIBLE_*, drops everything the app or the RTE reads, sets PYTHONUNBUFFERED=1", () => {
    expect(playbookEnv(parent, RTE_OWN_VARIABLES, { PLAYFORM_EVENTS_FD: "3" })).toEqual({
      PATH: "/usr/local/bin:/usr/bin",
      HOME: "/home/rte",
      LANG: "C.UTF-8",
      HTTPS_PROXY: "http://proxy:3128",
      https_proxy: "http://proxy:3128",
      NO_PROXY: "localhost",
      ANSIBLE_CONFIG: "/etc/ansible/custom.cfg",
      ANSIBLE_ROLES_PATH: "/roles",
      PYTHONUNBUFFERED: "1",
      ANSIBLE_FORCE_COLOR: "1",
      ANSIBLE_HOST_KEY_CHECKING: "False",
      ANSIBLE_RETRY_FILES_ENABLED: "False",
      PLAYFORM_EVENTS_FD: "3",
    });
  });

  it("lets the operator's ANSIBLE_FORCE_COLOR and ANSIBLE_HOST_KEY_CHECKING win over the defaults", () => {
    const env = playbookEnv(
      { ANSIBLE_FORCE_COLOR: "0", ANSIBLE_HOST_KEY_CHECKING: "True" } as Record<string, string> as NodeJS.ProcessEnv,
      RTE_OWN_VARIABLES,
      {},
    );
    expect(env.ANSIBLE_FORCE_COLOR).toBe("0");
    expect(env.ANSIBLE_HOST_KEY_CHECKING).toBe("True");
  });

  it("does not modify the parent environment", () => {
    const copy = { ...parent };
    playbookEnv(parent, RTE_OWN_VARIABLES, {});
    expect(parent).toEqual(copy);
  });
});
