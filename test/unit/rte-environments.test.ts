/**
 * RTE_ENVIRONMENTS (server/rte/environments.ts): what a file must hold, and the exact message a
 * bad one stops the RTE with (the file, the entry, the field); and how the probe reads
 * `ansible-playbook --version` and `ansible-galaxy collection list --format json`
 * (server/rte/environment-probe.ts). The probe itself runs against real ansible in
 * test/integration/rte-environments.test.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseAnsibleVersion, parseCollectionList, probeEnvironments } from "../../server/rte/environment-probe";
import { defaultEnvironment, loadEnvironments, parseEnvironments } from "../../server/rte/environments";

const FILE = "/etc/playform/environments.yaml";

function refusal(text: string): string {
  try {
    parseEnvironments(text, FILE);
  } catch (error) {
    return (error as Error).message;
  }
  return "accepted";
}

describe("RTE_ENVIRONMENTS", () => {
  it("reads every field, resolving relative folders against the file's folder", () => {
    const text = [
      "environments:",
      "  - name: ansible-9",
      "    bin: venvs/ansible-9/bin",
      "    collectionsPaths: [/opt/collections, ./collections]",
      "    rolesPaths: [roles]",
      "    description: ansible 9 with the network collections",
      "  - name: system",
      "    bin: /usr/bin",
    ].join("\n");
    expect(parseEnvironments(text, FILE)).toEqual([
      {
        name: "ansible-9",
        bin: "/etc/playform/venvs/ansible-9/bin",
        collectionsPaths: ["/opt/collections", "/etc/playform/collections"],
        rolesPaths: ["/etc/playform/roles"],
        description: "ansible 9 with the network collections",
      },
      { name: "system", bin: "/usr/bin", collectionsPaths: [], rolesPaths: [], description: "" },
    ]);
  });

  it("without the variable, offers one environment named default: the ansible on PATH, or ANSIBLE_PLAYBOOK's folder", () => {
    expect(loadEnvironments(undefined, "ansible-playbook")).toEqual([
      {
        name: "default",
        bin: null,
        collectionsPaths: [],
        rolesPaths: [],
        description: "the ansible on PATH",
        ansiblePlaybook: "ansible-playbook",
      },
    ]);
    expect(loadEnvironments("", "ansible-playbook")).toEqual(loadEnvironments(undefined, "ansible-playbook"));
    expect(defaultEnvironment("/opt/ansible/bin/ansible-playbook")).toMatchObject({
      bin: "/opt/ansible/bin",
      description: "the ansible of ANSIBLE_PLAYBOOK (/opt/ansible/bin/ansible-playbook)",
    });
  });

  it("refuses a bad file, naming the file, the entry and the field", () => {
    const entry = (lines: string) => `environments:\n  - name: good\n    bin: /usr/bin\n${lines}`;
    expect(refusal(entry("  - name: Bad Name\n    bin: /usr/bin\n"))).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environment 2 ("Bad Name"): name: must be 1 to 32 of a-z 0-9 . _ - (starting with a letter or digit)`,
    );
    expect(refusal(entry(`  - name: ${"a".repeat(33)}\n    bin: /usr/bin\n`))).toMatch(
      /: environment 2 \("a{33}"\): name: must be 1 to 32/,
    );
    expect(refusal(entry("  - bin: /usr/bin\n"))).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environment 2: name: is required (a short name: lowercase letters, digits, . _ -)`,
    );
    expect(refusal(entry("  - name: py311\n"))).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environment 2 ("py311"): bin: is required (the folder holding ansible-playbook, e.g. /opt/ansible-9/bin)`,
    );
    expect(refusal(entry('  - name: py311\n    bin: ""\n'))).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environment 2 ("py311"): bin: must not be empty`,
    );
    expect(refusal(entry("  - name: good\n    bin: /opt/bin\n"))).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environment 2 ("good"): name: "good" is already the name of environment 1`,
    );
    expect(refusal(entry("  - name: py311\n    bin: /opt/bin\n    collectionPaths: [/x]\n"))).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environment 2 ("py311"): unknown field collectionPaths`,
    );
    expect(refusal(entry("  - name: py311\n    bin: /opt/bin\n    collectionsPaths: /x\n"))).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environment 2 ("py311"): collectionsPaths: must be a list of folders`,
    );
    expect(refusal(entry('  - name: py311\n    bin: /opt/bin\n    rolesPaths: [/x, ""]\n'))).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environment 2 ("py311"): rolesPaths.1: must not be empty`,
    );
    expect(refusal(entry("  - name: py311\n    bin: /opt/bin\n    description: [a]\n"))).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environment 2 ("py311"): description: must be text`,
    );
    expect(refusal(entry("  - just-a-string\n"))).toBe(`RTE_ENVIRONMENTS=${FILE}: environment 2: must be a mapping (name:, bin:, …)`);
  });

  it("refuses a file without a list of environments, or that is not YAML", () => {
    expect(refusal("")).toBe(`RTE_ENVIRONMENTS=${FILE}: must be a mapping with an environments: list`);
    expect(refusal("- name: a\n  bin: /usr/bin\n")).toBe(`RTE_ENVIRONMENTS=${FILE}: must be a mapping with an environments: list`);
    expect(refusal("environment:\n  - name: a\n")).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environments: is required: a list of environments (each with name: and bin:)`,
    );
    expect(refusal("environments: /usr/bin\n")).toBe(
      `RTE_ENVIRONMENTS=${FILE}: environments: must be a list of environments (each with name: and bin:)`,
    );
    expect(refusal("environments: []\n")).toBe(`RTE_ENVIRONMENTS=${FILE}: environments: must list at least one environment`);
    expect(refusal("environments:\n  - name: [a\n")).toMatch(new RegExp(`^RTE_ENVIRONMENTS=${FILE}: not valid YAML: `));
  });

  it("refuses a file that cannot be read", () => {
    expect(() => loadEnvironments("/nonexistent/environments.yaml", "ansible-playbook")).toThrow(
      "RTE_ENVIRONMENTS=/nonexistent/environments.yaml: cannot be read (no such file)",
    );
  });
});

describe("reading ansible-playbook --version", () => {
  it("reads ansible-core and Python (ansible-core 2.11 and later)", () => {
    const output = [
      "ansible-playbook [core 2.14.18]",
      "  config file = None",
      "  ansible collection location = /root/.ansible/collections:/usr/share/ansible/collections",
      "  executable location = /usr/bin/ansible-playbook",
      "  python version = 3.11.2 (main, Apr 28 2025, 14:11:48) [GCC 12.2.0] (/usr/bin/python3)",
      "  jinja version = 3.1.2",
      "  libyaml = True",
    ].join("\n");
    expect(parseAnsibleVersion(output)).toEqual({ ansibleCore: "2.14.18", python: "3.11.2" });
  });

  it("reads ansible-base 2.10 and ansible 2.9, whose first line has no [core]", () => {
    const output =
      "ansible-playbook 2.9.27\n  config file = /etc/ansible/ansible.cfg\n  python version = 3.8.10 (default, Nov 22 2023, 10:22:35) [GCC 9.4.0]\n";
    expect(parseAnsibleVersion(output)).toEqual({ ansibleCore: "2.9.27", python: "3.8.10" });
    expect(parseAnsibleVersion("ansible-playbook [core 2.18.0rc1]\n")).toEqual({ ansibleCore: "2.18.0rc1", python: null });
  });

  it("finds no version in anything else", () => {
    expect(parseAnsibleVersion("")).toBeNull();
    expect(parseAnsibleVersion("usage: ansible-playbook [-h]\n")).toBeNull();
    expect(parseAnsibleVersion("Python 3.11.2\n")).toBeNull();
  });
});

describe("reading ansible-galaxy collection list --format json", () => {
  it("lists each collection once, sorted, with the version of the first path searched (the environment's own first)", () => {
    const output = JSON.stringify({
      "/usr/lib/python3/dist-packages/ansible_collections": {
        "community.general": { version: "6.6.2" },
        "ansible.posix": { version: "1.5.4" },
      },
      "/opt/extra/ansible_collections": { "community.general": { version: "9.0.0" }, "acme.tools": { version: null } },
    });
    expect(parseCollectionList(output, ["/opt/extra"])).toEqual([
      { name: "acme.tools", version: "*" },
      { name: "ansible.posix", version: "1.5.4" },
      { name: "community.general", version: "9.0.0" },
    ]);
    expect(parseCollectionList(output)).toContainEqual({ name: "community.general", version: "6.6.2" });
  });

  it("takes no collections as none, and anything that is not that JSON as unreadable", () => {
    expect(parseCollectionList("{}\n")).toEqual([]);
    expect(parseCollectionList('[WARNING]: something\n{"/c/ansible_collections": {"a.b": {"version": "1.0.0"}}}\n')).toEqual([
      { name: "a.b", version: "1.0.0" },
    ]);
    expect(parseCollectionList("")).toBeNull();
    expect(parseCollectionList("No collections found\n")).toBeNull();
    expect(parseCollectionList('{"/c": ["a.b"]}')).toBeNull();
  });
});

describe("probing an environment that cannot run", () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-envs-"));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const probe = (bin: string | null, timeoutMs?: number) =>
    probeEnvironments([{ name: "x", bin, collectionsPaths: [], rolesPaths: [], description: "d" }], {
      parentEnv: { PATH: "/nonexistent" },
      pass: [],
      user: null,
      timeoutMs,
    });

  it("reports the missing folder, program, or one that fails or hangs as the environment's error", async () => {
    const empty = path.join(scratch, "empty");
    fs.mkdirSync(empty);
    const failing = path.join(scratch, "failing");
    fs.mkdirSync(failing);
    fs.writeFileSync(
      path.join(failing, "ansible-playbook"),
      "#!/bin/sh\necho 'ModuleNotFoundError: No module named ansible' >&2\nexit 1\n",
      {
        mode: 0o755,
      },
    );
    const hanging = path.join(scratch, "hanging");
    fs.mkdirSync(hanging);
    for (const program of ["ansible-playbook", "ansible-galaxy"])
      fs.writeFileSync(path.join(hanging, program), "#!/bin/sh\nexec /bin/sleep 30\n", { mode: 0o755 });
    const error = async (bin: string | null, timeoutMs?: number) => (await probe(bin, timeoutMs))[0]!.error;

    expect(await error(path.join(scratch, "nope"))).toBe(`the folder ${scratch}/nope does not exist`);
    expect(await error(empty)).toBe(`no ansible-playbook in ${empty} (or it is not executable)`);
    expect(await error(null)).toBe("ansible-playbook is not on PATH");
    expect(await error(failing)).toBe("ansible-playbook --version failed (exit 1): ModuleNotFoundError: No module named ansible");
    const started = Date.now();
    expect(await error(hanging, 500)).toBe("ansible-playbook --version did not answer within 0.5 s");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await probe(empty))[0]).toMatchObject({ name: "x", description: "d", ansibleCore: null, python: null, collections: [] });
  });
});
