import { hostname } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { localRteDirs } from "../../server/local-rte";
import { RTE_OWN_VARIABLES, defaultJobsDir, loadRteEnv } from "../../server/rte/env";

/** An environment with only these variables (NODE_ENV is required by the ProcessEnv type only). */
function vars(values: Record<string, string>): NodeJS.ProcessEnv {
  return values as NodeJS.ProcessEnv;
}

function loadError(values: Record<string, string>): string {
  try {
    loadRteEnv(vars(values));
  } catch (error) {
    return (error as Error).message;
  }
  return "loaded";
}

describe("loadRteEnv", () => {
  it("trims a trailing newline (a Kubernetes Secret) from the token", () => {
    expect(loadRteEnv(vars({ RTE_TOKEN: "pfr_abc\n" })).RTE_TOKEN).toBe("pfr_abc");
    expect(loadRteEnv(vars({ RTE_TOKEN: " pfr_abc\r\n" })).RTE_TOKEN).toBe("pfr_abc");
  });

  it("refuses an empty token (or one of whitespace only), naming RTE_TOKEN", () => {
    expect(loadError({ RTE_TOKEN: "" })).toBe("invalid RTE configuration:\n  RTE_TOKEN: is empty");
    expect(loadError({ RTE_TOKEN: "\n" })).toBe("invalid RTE configuration:\n  RTE_TOKEN: is empty");
  });

  it("names its runner to the app only when RTE_RUNNER_NAME is set (the host name is only a default for joining)", () => {
    expect(loadRteEnv(vars({ RTE_TOKEN: "t", RTE_RUNNER_NAME: "dc1" })).runnerName).toBe("dc1");
    expect(loadRteEnv(vars({ RTE_TOKEN: "t" })).runnerName).toBeNull();
  });

  it("has no token when RTE_TOKEN is absent (the RTE then asks to join)", () => {
    expect(loadRteEnv(vars({})).RTE_TOKEN).toBeUndefined();
  });

  it("has the documented defaults (folders under data/rte/<runner name>, the host name unless named)", () => {
    const env = loadRteEnv(vars({ RTE_TOKEN: "t" }));
    const own = (kind: string) => path.resolve("data/rte", hostname(), kind);
    expect(env).toEqual({
      APP_URL: "http://127.0.0.1:3000",
      RTE_TOKEN: "t",
      RTE_RUNNER_NAME: hostname(),
      RTE_MODE: "outbound",
      RTE_FILES: "transfer",
      RTE_INSTANCE_ID: hostname(),
      RTE_MAX_JOBS: 4,
      RTE_PLAYBOOK_NICE: 10,
      RTE_PLAYBOOK_PRIVATE_TMP: "on",
      RTE_SANDBOX_PROC: "private",
      RTE_JOB_DISK_LIMIT: 10 * 1024 ** 3,
      RTE_JOB_DISK_CHECK_SECONDS: 5,
      RTE_PLAYBOOK_ENV_PASS: [],
      RTE_DRAIN_SECONDS: 60,
      RTE_KILL_GRACE_SECONDS: 10,
      PORT: 8000,
      // 1 GiB per stream (50 MB once cut big jobs; the disk holds it, not memory).
      PROCESS_MAX_BUFFER: 1024 * 1024 * 1024,
      ANSIBLE_PLAYBOOK: "ansible-playbook",
      RTE_REQUIREMENTS_MAX_AGE_DAYS: 30,
      RTE_REQUIREMENTS_MAX_BYTES: null,
      RTE_REQUIREMENTS_INSTALL_MAX_BYTES: 2 * 1024 ** 3,
      RTE_REQUIREMENTS_TIMEOUT_SECONDS: 600,
      spoolDir: own("spool"),
      workDir: own("work"),
      cacheDir: path.join(own("work"), "cache"),
      stateDir: own("state"),
      runnerName: null,
      jobsDir: defaultJobsDir(own("work")),
      // The one folder the playbook user is sure to reach (the work dir is the RTE's alone).
      requirementsDir: path.join(defaultJobsDir(own("work")), ".requirements"),
      sandbox: "bwrap",
    });
  });

  it("takes RTE_SANDBOX=bwrap|none, and the deprecated RTE_PLAYBOOK_SANDBOX=auto|off as its alias", () => {
    expect(loadRteEnv(vars({})).sandbox).toBe("bwrap");
    expect(loadRteEnv(vars({ RTE_SANDBOX: "none" })).sandbox).toBe("none");
    expect(loadRteEnv(vars({ RTE_SANDBOX: "bwrap" })).sandbox).toBe("bwrap");
    expect(loadRteEnv(vars({ RTE_PLAYBOOK_SANDBOX: "off" })).sandbox).toBe("none");
    expect(loadRteEnv(vars({ RTE_PLAYBOOK_SANDBOX: "auto" })).sandbox).toBe("bwrap");
    // Both, saying the same: fine; saying different things: neither is taken silently.
    expect(loadRteEnv(vars({ RTE_SANDBOX: "none", RTE_PLAYBOOK_SANDBOX: "off" })).sandbox).toBe("none");
    expect(loadError({ RTE_SANDBOX: "bwrap", RTE_PLAYBOOK_SANDBOX: "off" })).toBe(
      "invalid RTE configuration:\n  RTE_SANDBOX: bwrap contradicts RTE_PLAYBOOK_SANDBOX=off (its deprecated spelling): unset RTE_PLAYBOOK_SANDBOX",
    );
    expect(loadError({ RTE_SANDBOX: "auto" })).toBe("invalid RTE configuration:\n  RTE_SANDBOX: must be bwrap or none");
    expect(loadError({ RTE_PLAYBOOK_SANDBOX: "on" })).toBe(
      "invalid RTE configuration:\n  RTE_PLAYBOOK_SANDBOX: must be auto or off (deprecated: use RTE_SANDBOX=bwrap|none)",
    );
  });

  it("takes RTE_SANDBOX_PROC=private|runner, private by default", () => {
    expect(loadRteEnv(vars({})).RTE_SANDBOX_PROC).toBe("private");
    expect(loadRteEnv(vars({ RTE_SANDBOX_PROC: "runner" })).RTE_SANDBOX_PROC).toBe("runner");
    expect(loadError({ RTE_SANDBOX_PROC: "host" })).toBe("invalid RTE configuration:\n  RTE_SANDBOX_PROC: must be private or runner");
  });

  it("takes RTE_REQUIREMENTS_INSTALL_MAX_BYTES as a size, 0 for no cap", () => {
    expect(loadRteEnv(vars({ RTE_REQUIREMENTS_INSTALL_MAX_BYTES: "1MiB" })).RTE_REQUIREMENTS_INSTALL_MAX_BYTES).toBe(1024 ** 2);
    expect(loadRteEnv(vars({ RTE_REQUIREMENTS_INSTALL_MAX_BYTES: "0" })).RTE_REQUIREMENTS_INSTALL_MAX_BYTES).toBeNull();
    expect(loadError({ RTE_REQUIREMENTS_INSTALL_MAX_BYTES: "lots" })).toBe(
      'invalid RTE configuration:\n  RTE_REQUIREMENTS_INSTALL_MAX_BYTES: "lots" is not a size (e.g. 2GiB, 500MiB), or 0 for no cap',
    );
  });

  it("takes RTE_GALAXY_SERVER as an http(s) URL (empty: unset), and RTE_REQUIREMENTS_DIR as a folder", () => {
    const env = loadRteEnv(vars({ RTE_GALAXY_SERVER: " https://galaxy.internal/api/ \n", RTE_REQUIREMENTS_DIR: "reqs" }));
    expect(env.RTE_GALAXY_SERVER).toBe("https://galaxy.internal/api/");
    expect(env.requirementsDir).toBe(path.resolve("reqs"));
    expect(loadRteEnv(vars({ RTE_GALAXY_SERVER: "" })).RTE_GALAXY_SERVER).toBeUndefined();
    expect(() => loadRteEnv(vars({ RTE_GALAXY_SERVER: "ftp://mirror" }))).toThrow(
      /RTE_GALAXY_SERVER: must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(() => loadRteEnv(vars({ RTE_REQUIREMENTS_TIMEOUT_SECONDS: "0" }))).toThrow(/RTE_REQUIREMENTS_TIMEOUT_SECONDS/);
  });

  it("takes RTE_PIP_INDEX_URL as an http(s) URL and RTE_PIP_FIND_LINKS as an absolute folder or URL (empty: unset)", () => {
    const env = loadRteEnv(vars({ RTE_PIP_INDEX_URL: " https://pypi.internal/simple \n", RTE_PIP_FIND_LINKS: "/srv/wheels" }));
    expect([env.RTE_PIP_INDEX_URL, env.RTE_PIP_FIND_LINKS]).toEqual(["https://pypi.internal/simple", "/srv/wheels"]);
    expect(loadRteEnv(vars({ RTE_PIP_FIND_LINKS: "https://mirror/wheels/" })).RTE_PIP_FIND_LINKS).toBe("https://mirror/wheels/");
    expect(loadRteEnv(vars({ RTE_PIP_INDEX_URL: "", RTE_PIP_FIND_LINKS: " " })).RTE_PIP_INDEX_URL).toBeUndefined();
    expect(() => loadRteEnv(vars({ RTE_PIP_INDEX_URL: "file:///srv/simple" }))).toThrow(/RTE_PIP_INDEX_URL: must be an http/);
    expect(() => loadRteEnv(vars({ RTE_PIP_FIND_LINKS: "wheels" }))).toThrow(/RTE_PIP_FIND_LINKS: must be an absolute folder/);
  });

  it("keeps a named runner's default folders apart from the local RTE's of npm start (README, Runners)", () => {
    // APP_URL=… RTE_RUNNER_NAME=datacenter-2 npm run rte, in the folder where npm start runs.
    const second = loadRteEnv(vars({ APP_URL: "http://127.0.0.1:3000", RTE_RUNNER_NAME: "datacenter-2" }));
    expect([second.spoolDir, second.workDir, second.stateDir]).toEqual([
      path.resolve("data/rte/datacenter-2/spool"),
      path.resolve("data/rte/datacenter-2/work"),
      path.resolve("data/rte/datacenter-2/state"),
    ]);
    // The local RTE's folders with npm start's defaults: not one of them is shared.
    const local = localRteDirs({});
    for (const dir of [second.spoolDir, second.workDir, second.stateDir]) {
      for (const mine of [local.spoolDir, local.workDir, local.stateDir]) {
        expect(dir === mine || dir.startsWith(mine + path.sep) || mine.startsWith(dir + path.sep), `${dir} vs ${mine}`).toBe(false);
      }
    }
    expect(second.jobsDir).not.toBe(defaultJobsDir(local.workDir));
    // Two named runners do not share either; a folder given explicitly wins.
    expect(loadRteEnv(vars({ RTE_RUNNER_NAME: "dc3" })).spoolDir).toBe(path.resolve("data/rte/dc3/spool"));
    expect(loadRteEnv(vars({ RTE_RUNNER_NAME: "dc3", RTE_STATE_PATH: "/etc/rte" })).stateDir).toBe("/etc/rte");
  });

  it("coerces numbers and resolves the folders", () => {
    const env = loadRteEnv(
      vars({
        RTE_TOKEN: "t",
        RTE_MAX_JOBS: "2",
        PORT: "0",
        RTE_DRAIN_SECONDS: "45",
        PROCESS_MAX_BUFFER: "1024",
        RTE_SPOOL_PATH: "/var/spool/rte",
        RTE_WORK_DIR: "/var/lib/rte",
        RTE_INSTANCE_ID: "runner-a-0",
      }),
    );
    expect([env.RTE_MAX_JOBS, env.PORT, env.RTE_DRAIN_SECONDS, env.PROCESS_MAX_BUFFER]).toEqual([2, 0, 45, 1024]);
    expect([env.spoolDir, env.workDir, env.cacheDir, env.RTE_INSTANCE_ID]).toEqual([
      "/var/spool/rte",
      "/var/lib/rte",
      "/var/lib/rte/cache",
      "runner-a-0",
    ]);
  });

  it("names every bad variable", () => {
    const message = loadError({ RTE_TOKEN: "t", RTE_MAX_JOBS: "0", PORT: "70000", APP_URL: "not a url", RTE_MODE: "sideways" });
    expect(
      message
        .split("\n  ")
        .slice(1)
        .map((line) => line.split(":")[0])
        .sort(),
    ).toEqual(["APP_URL", "PORT", "RTE_MAX_JOBS", "RTE_MODE"]);
  });

  it("takes RTE_PLAYBOOK_NICE from 0 to 19, and refuses anything else naming the variable and the value", () => {
    expect(loadRteEnv(vars({ RTE_PLAYBOOK_NICE: "0" })).RTE_PLAYBOOK_NICE).toBe(0);
    expect(loadRteEnv(vars({ RTE_PLAYBOOK_NICE: "19" })).RTE_PLAYBOOK_NICE).toBe(19);
    expect(loadRteEnv(vars({ RTE_PLAYBOOK_NICE: " 5\n" })).RTE_PLAYBOOK_NICE).toBe(5);
    for (const bad of ["20", "-1", "5.5", "high", "", "010"]) {
      expect(loadError({ RTE_PLAYBOOK_NICE: bad })).toBe(
        `invalid RTE configuration:\n  RTE_PLAYBOOK_NICE: ${JSON.stringify(bad)} is not a whole number from 0 (the RTE's own CPU priority) to 19 (the lowest)`,
      );
    }
  });

  it("reads RTE_PLAYBOOK_ENV_PASS as names, comma or space separated, and refuses its own and the app's variables", () => {
    expect(loadRteEnv(vars({})).RTE_PLAYBOOK_ENV_PASS).toEqual([]);
    expect(loadRteEnv(vars({ RTE_PLAYBOOK_ENV_PASS: " SSH_AUTH_SOCK, KRB5CCNAME\tPYTHONPATH,," })).RTE_PLAYBOOK_ENV_PASS).toEqual([
      "SSH_AUTH_SOCK",
      "KRB5CCNAME",
      "PYTHONPATH",
    ]);
    expect(loadError({ RTE_PLAYBOOK_ENV_PASS: "GOOD, 9BAD, WITH-DASH" })).toBe(
      'invalid RTE configuration:\n  RTE_PLAYBOOK_ENV_PASS: "9BAD" is not a variable name (letters, digits and _)\n  RTE_PLAYBOOK_ENV_PASS: "WITH-DASH" is not a variable name (letters, digits and _)',
    );
    for (const own of [
      "RTE_TOKEN",
      "DATABASE_URL",
      "ENCRYPTION_SECRET",
      "PLAYFORM_ADMIN_PASSWORD",
      "APP_URL",
      "RTE_ANYTHING",
      "RTE_METRICS_TOKEN",
    ]) {
      expect(loadError({ RTE_PLAYBOOK_ENV_PASS: `FOO ${own}` })).toBe(
        `invalid RTE configuration:\n  RTE_PLAYBOOK_ENV_PASS: ${own} is the runner's or the app's own setting, never passed to a playbook`,
      );
    }
  });

  it("lists the variables it reads, except ANSIBLE_PLAYBOOK, as its own (kept from playbooks)", () => {
    expect([...RTE_OWN_VARIABLES].sort()).toEqual(
      [
        "APP_URL",
        "PORT",
        "PROCESS_MAX_BUFFER",
        "RTE_DRAIN_SECONDS",
        "RTE_FILES",
        "RTE_INSTANCE_ID",
        "RTE_KILL_GRACE_SECONDS",
        "RTE_MAX_JOBS",
        "RTE_MODE",
        "RTE_PIP_FIND_LINKS",
        "RTE_PIP_INDEX_URL",
        "RTE_SPOOL_PATH",
        "RTE_TOKEN",
        "RTE_RUNNER_NAME",
        "RTE_STATE_PATH",
        "RTE_ADDRESS",
        "RTE_TLS_CERT",
        "RTE_TLS_KEY",
        "RTE_WORK_DIR",
        "RTE_JOBS_DIR",
        "RTE_PLAYBOOK_USER",
        "RTE_PLAYBOOK_NICE",
        "RTE_SANDBOX",
        "RTE_SANDBOX_PROC",
        "RTE_PLAYBOOK_SANDBOX",
        "RTE_PLAYBOOK_PRIVATE_TMP",
        "RTE_JOB_DISK_LIMIT",
        "RTE_JOB_DISK_CHECK_SECONDS",
        "RTE_PLAYBOOK_ENV_PASS",
        "RTE_METRICS_TOKEN",
        "RTE_ENVIRONMENTS",
        "RTE_REQUIREMENTS_DIR",
        "RTE_REQUIREMENTS_MAX_AGE_DAYS",
        "RTE_REQUIREMENTS_MAX_BYTES",
        "RTE_REQUIREMENTS_INSTALL_MAX_BYTES",
        "RTE_REQUIREMENTS_TIMEOUT_SECONDS",
        "RTE_GALAXY_SERVER",
      ].sort(),
    );
  });
});
