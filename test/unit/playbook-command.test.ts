import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { jobOptionsSchema } from "../../server/protocol/rte-messages";
import { vaultPasswordScript } from "../../server/rte/ansible/plugin-path";
import { defaultEnvironment } from "../../server/rte/environments";
import {
  environmentEnv,
  environmentFolders,
  environmentProgram,
  playbookArgs,
  playbookCommand,
  playbookEnv,
  type CommandInput,
} from "../../server/rte/playbook-command";

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
    LANGUAGE: "en",
    LC_ALL: "C.UTF-8",
    LC_TIME: "de_DE.UTF-8",
    TZ: "Europe/Berlin",
    HTTPS_PROXY: "http://proxy:3128",
    https_proxy: "http://proxy:3128",
    http_proxy: "http://proxy:3128",
    HTTP_PROXY: "http://proxy:3128",
    NO_PROXY: "localhost",
    no_proxy: "localhost",
    ALL_PROXY: "socks5://proxy:1080",
    all_proxy: "socks5://proxy:1080",
    ANSIBLE_CONFIG: "/etc/ansible/custom.cfg",
    ANSIBLE_ROLES_PATH: "/roles",
    ANSIBLE_VAULT_PASSWORD_FILE: "/etc/ansible/vault-pass",
    ANSIBLE_VAULT_IDENTITY_LIST: "prod@/etc/ansible/prod-pass",
    ANSIBLE_BECOME_PASSWORD_FILE: "/etc/ansible/become-pass",
    ANSIBLE_CONNECTION_PASSWORD_FILE: "/etc/ansible/ssh-pass",
    ANSIBLE_GALAXY_TOKEN: "galaxy-token",
    ANSIBLE_GALAXY_SERVER_PRIVATE_PASSWORD: "galaxy-pw",
    RTE_TOKEN: "pfr_secret",
    RTE_INSTANCE_ID: "rte-0",
    RTE_SOMETHING_NEW: "x",
    RTE_PLAYBOOK_ENV_PASS: "SSH_AUTH_SOCK",
    APP_URL: "https://playform.example",
    PORT: "8000",
    PROCESS_MAX_BUFFER: "1000",
    DATABASE_URL: "postgres://u:p@db/playform",
    ENCRYPTION_SECRET: "enc",
    PLAYFORM_ADMIN_PASSWORD: "admin-pw",
    PLAYFORM_ROLE: "rte",
    NODE_OPTIONS: "--inspect",
    PYTHONUNBUFFERED: "0",
    PGPASSWORD: "pg-secret",
    AWS_SECRET_ACCESS_KEY: "aws-secret",
    AWS_ACCESS_KEY_ID: "AKIA0000",
    GITHUB_TOKEN: "ghp_secret",
    FOO_PASSWORD: "foo-secret",
    SSH_AUTH_SOCK: "/run/agent.sock",
    KRB5CCNAME: "FILE:/tmp/krb5cc_0",
    UNSET: undefined,
  } as Record<string, string | undefined> as NodeJS.ProcessEnv;

  it("passes only the allow list: path, home, locale, time zone, proxies, ANSIBLE_* settings, and sets the runner's own", () => {
    expect(playbookEnv(parent, { PLAYFORM_EVENTS_FD: "3" })).toEqual({
      PATH: "/usr/local/bin:/usr/bin",
      HOME: "/home/rte",
      LANG: "C.UTF-8",
      LANGUAGE: "en",
      LC_ALL: "C.UTF-8",
      LC_TIME: "de_DE.UTF-8",
      TZ: "Europe/Berlin",
      HTTPS_PROXY: "http://proxy:3128",
      https_proxy: "http://proxy:3128",
      http_proxy: "http://proxy:3128",
      HTTP_PROXY: "http://proxy:3128",
      NO_PROXY: "localhost",
      no_proxy: "localhost",
      ALL_PROXY: "socks5://proxy:1080",
      all_proxy: "socks5://proxy:1080",
      ANSIBLE_CONFIG: "/etc/ansible/custom.cfg",
      ANSIBLE_ROLES_PATH: "/roles",
      PYTHONUNBUFFERED: "1",
      ANSIBLE_FORCE_COLOR: "1",
      ANSIBLE_HOST_KEY_CHECKING: "False",
      ANSIBLE_RETRY_FILES_ENABLED: "False",
      PLAYFORM_EVENTS_FD: "3",
    });
  });

  it("keeps the server's secrets, the runner's and the app's settings and the runner's vault, become and galaxy secrets from the playbook", () => {
    const env = playbookEnv(parent, {});
    for (const name of [
      "PGPASSWORD",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_ACCESS_KEY_ID",
      "GITHUB_TOKEN",
      "FOO_PASSWORD",
      "SSH_AUTH_SOCK",
      "DATABASE_URL",
      "ENCRYPTION_SECRET",
      "NODE_OPTIONS",
      "APP_URL",
      "PORT",
      "ANSIBLE_VAULT_PASSWORD_FILE",
      "ANSIBLE_VAULT_IDENTITY_LIST",
      "ANSIBLE_BECOME_PASSWORD_FILE",
      "ANSIBLE_CONNECTION_PASSWORD_FILE",
      "ANSIBLE_GALAXY_TOKEN",
      "ANSIBLE_GALAXY_SERVER_PRIVATE_PASSWORD",
    ]) {
      expect(env, name).not.toHaveProperty(name);
    }
    expect(Object.keys(env).filter((name) => name.startsWith("RTE_") || name.startsWith("PLAYFORM_"))).toEqual([]);
    for (const secret of ["pg-secret", "aws-secret", "ghp_secret", "foo-secret", "pfr_secret", "enc", "admin-pw", "galaxy"]) {
      expect(
        Object.values(env).some((value) => value.includes(secret)),
        secret,
      ).toBe(false);
    }
  });

  it("passes the names RTE_PLAYBOOK_ENV_PASS lists (and only when the RTE has them)", () => {
    const env = playbookEnv(parent, {}, ["SSH_AUTH_SOCK", "KRB5CCNAME", "ANSIBLE_VAULT_PASSWORD_FILE", "NOT_SET"]);
    expect(env.SSH_AUTH_SOCK).toBe("/run/agent.sock");
    expect(env.KRB5CCNAME).toBe("FILE:/tmp/krb5cc_0");
    expect(env.ANSIBLE_VAULT_PASSWORD_FILE).toBe("/etc/ansible/vault-pass");
    expect(env).not.toHaveProperty("NOT_SET");
    expect(env).not.toHaveProperty("PGPASSWORD");
  });

  it("sets what the runner gives this run over the RTE's own (the playbook user's HOME)", () => {
    expect(playbookEnv(parent, { HOME: "/jobs/12", USER: "playform-run" })).toMatchObject({ HOME: "/jobs/12", USER: "playform-run" });
  });

  it("lets the operator's ANSIBLE_FORCE_COLOR and ANSIBLE_HOST_KEY_CHECKING win over the defaults", () => {
    const env = playbookEnv(
      { ANSIBLE_FORCE_COLOR: "0", ANSIBLE_HOST_KEY_CHECKING: "True" } as Record<string, string> as NodeJS.ProcessEnv,
      {},
    );
    expect(env.ANSIBLE_FORCE_COLOR).toBe("0");
    expect(env.ANSIBLE_HOST_KEY_CHECKING).toBe("True");
  });

  it("does not modify the parent environment", () => {
    const copy = { ...parent };
    playbookEnv(parent, {}, ["SSH_AUTH_SOCK"]);
    expect(parent).toEqual(copy);
  });
});

describe("an environment's programs and variables", () => {
  const venv = { bin: "/opt/ansible-9/bin", collectionsPaths: ["/opt/col"], rolesPaths: ["/opt/roles"] };

  it("runs the environment's programs; the built-in default keeps ANSIBLE_PLAYBOOK as configured", () => {
    expect(environmentProgram(venv, "ansible-playbook")).toBe("/opt/ansible-9/bin/ansible-playbook");
    expect(environmentProgram(venv, "ansible-inventory")).toBe("/opt/ansible-9/bin/ansible-inventory");
    expect(environmentProgram(defaultEnvironment("ansible-playbook"), "ansible-playbook")).toBe("ansible-playbook");
    expect(environmentProgram(defaultEnvironment("ansible-playbook"), "ansible-inventory")).toBe("ansible-inventory");
    // A path whose name is not ansible-playbook (a wrapper) is run as it is, its ansible-inventory beside it.
    expect(environmentProgram(defaultEnvironment("/opt/a/bin/run-ansible"), "ansible-playbook")).toBe("/opt/a/bin/run-ansible");
    expect(environmentProgram(defaultEnvironment("/opt/a/bin/run-ansible"), "ansible-inventory")).toBe("/opt/a/bin/ansible-inventory");
  });

  it("puts its bin folder first on PATH and its folders before the runner's search paths, or ansible's own", () => {
    expect(environmentEnv({ PATH: "/usr/bin", ANSIBLE_ROLES_PATH: "/srv/roles" }, venv)).toEqual({
      PATH: "/opt/ansible-9/bin:/usr/bin",
      ANSIBLE_COLLECTIONS_PATH: "/opt/col:~/.ansible/collections:/usr/share/ansible/collections",
      ANSIBLE_ROLES_PATH: "/opt/roles:/srv/roles",
    });
    // The older spelling the runner may set is kept after the environment's.
    expect(environmentEnv({ ANSIBLE_COLLECTIONS_PATHS: "/srv/col" }, venv).ANSIBLE_COLLECTIONS_PATH).toBe("/opt/col:/srv/col");
  });

  it("leaves the built-in default environment's variables as they are", () => {
    const env = { PATH: "/usr/bin", ANSIBLE_COLLECTIONS_PATH: "/srv/col" };
    expect(environmentEnv(env, defaultEnvironment("/opt/a/bin/ansible-playbook"))).toEqual(env);
    expect(environmentFolders(venv)).toEqual(["/opt/ansible-9/bin", "/opt/col", "/opt/roles"]);
  });
});
