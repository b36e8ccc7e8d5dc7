import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { requirementsKey } from "../../server/rte/requirements";
import { relocateVenv } from "../../server/rte/requirements-cache";
import { PipInstall, RequirementsInstallError } from "../../server/rte/requirements-install";
import {
  findPipRequirementsFile,
  parseAnsibleInterpreter,
  parsePipLocalPaths,
  pipInstallArgs,
  pipLocalPath,
  pipRequirementsKey,
  type PipKeyInput,
} from "../../server/rte/requirements-pip";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("findPipRequirementsFile", () => {
  it("looks beside the playbook only", () => {
    const files = new Set(["requirements.txt", "deploy/requirements.txt", "collections/requirements.txt"]);
    expect(findPipRequirementsFile("site.yml", (p) => files.has(p))).toBe("requirements.txt");
    expect(findPipRequirementsFile("deploy/site.yml", (p) => files.has(p))).toBe("deploy/requirements.txt");
    expect(findPipRequirementsFile("other/site.yml", (p) => files.has(p))).toBeNull();
  });
});

describe("parsePipLocalPaths", () => {
  it("names included files and requirement lines that are paths, not packages, URLs or options", () => {
    const text = [
      "# pinned",
      "netaddr==0.8.0  # a comment",
      "jmespath>=1.0; python_version >= '3.8'",
      "-r more.txt",
      "--constraint=constraints.txt",
      "./vendor/acme-1.0-py3-none-any.whl",
      "vendor/tool-2.0.tar.gz",
      "/srv/wheels/x-1.0-py3-none-any.whl",
      "https://example.com/y-1.0-py3-none-any.whl",
      "--hash=sha256:abc",
      "-e git+https://example.com/z.git#egg=z",
      "",
    ].join("\n");
    expect(parsePipLocalPaths(text)).toEqual([
      "more.txt",
      "constraints.txt",
      "./vendor/acme-1.0-py3-none-any.whl",
      "vendor/tool-2.0.tar.gz",
      "/srv/wheels/x-1.0-py3-none-any.whl",
    ]);
  });

  it("resolves them against the file's folder, as pip does", () => {
    expect(pipLocalPath("deploy/requirements.txt", "./vendor/a.whl")).toBe("deploy/vendor/a.whl");
    expect(pipLocalPath("requirements.txt", "vendor/a.whl")).toBe("vendor/a.whl");
    expect(pipLocalPath("deploy/requirements.txt", "/srv/a.whl")).toBe("/srv/a.whl");
  });
});

describe("pipRequirementsKey", () => {
  const base: PipKeyInput = {
    environment: "default",
    ansible: "2.14.18",
    python: "3.11.2",
    indexUrl: null,
    findLinks: "/srv/wheels",
    file: { path: "requirements.txt", bytes: Buffer.from("netaddr==0.8.0\n") },
    local: [{ path: "vendor/a.whl", digest: "aa" }],
  };

  it("changes with every input, and not with the order of local paths", () => {
    const key = pipRequirementsKey(base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(pipRequirementsKey({ ...base })).toBe(key);
    const changed: Partial<PipKeyInput>[] = [
      { environment: "k8s" },
      { ansible: "2.18.1" },
      { python: "3.12.1" },
      { python: null },
      { indexUrl: "https://pypi.internal/simple" },
      { findLinks: null },
      { file: { path: "requirements.txt", bytes: Buffer.from("netaddr==1.3.0\n") } },
      { file: { path: "deploy/requirements.txt", bytes: Buffer.from("netaddr==0.8.0\n") } },
      { local: [{ path: "vendor/a.whl", digest: "bb" }] },
      { local: [{ path: "vendor/a.whl", digest: null }] },
    ];
    for (const change of changed) expect(pipRequirementsKey({ ...base, ...change }), JSON.stringify(change)).not.toBe(key);
    const two = [
      { path: "a", digest: "1" },
      { path: "b", digest: "2" },
    ];
    expect(pipRequirementsKey({ ...base, local: two })).toBe(pipRequirementsKey({ ...base, local: [...two].reverse() }));
  });

  it("is never a requirements.yml key of the same inputs", () => {
    const galaxy = requirementsKey({ environment: "default", ansible: "2.14.18", galaxyServer: null, files: [base.file], local: [] });
    expect(pipRequirementsKey({ ...base, findLinks: null, python: null, local: [] })).not.toBe(galaxy);
  });
});

describe("pipInstallArgs", () => {
  const head = [
    "install",
    "--disable-pip-version-check",
    "--no-input",
    "--no-cache-dir",
    "--progress-bar",
    "off",
    "-r",
    "requirements.txt",
  ];

  it("uses pip's own index without settings", () => {
    expect(pipInstallArgs("requirements.txt", { indexUrl: null, findLinks: null })).toEqual(head);
  });

  it("a find-links folder without an index: that folder only (--no-index)", () => {
    expect(pipInstallArgs("requirements.txt", { indexUrl: null, findLinks: "/srv/wheels" })).toEqual([
      ...head,
      "--find-links",
      "/srv/wheels",
      "--no-index",
    ]);
  });

  it("an index, and find-links as a URL, keep the index", () => {
    expect(pipInstallArgs("requirements.txt", { indexUrl: "https://pypi.internal/simple", findLinks: "/srv/wheels" })).toEqual([
      ...head,
      "--index-url",
      "https://pypi.internal/simple",
      "--find-links",
      "/srv/wheels",
    ]);
    expect(pipInstallArgs("requirements.txt", { indexUrl: null, findLinks: "https://mirror/wheels/" })).toEqual([
      ...head,
      "--find-links",
      "https://mirror/wheels/",
    ]);
  });
});

describe("parseAnsibleInterpreter", () => {
  it("reads the Python and the script from ansible-playbook --version (ansible-core 2.11+)", () => {
    const output = [
      "ansible-playbook [core 2.14.18]",
      "  config file = None",
      "  ansible python module location = /usr/lib/python3/dist-packages/ansible",
      "  executable location = /usr/bin/ansible-playbook",
      "  python version = 3.11.2 (main, Apr 28 2025, 14:11:48) [GCC 12.2.0] (/usr/bin/python3)",
      "  jinja version = 3.1.2",
    ].join("\n");
    expect(parseAnsibleInterpreter(output)).toEqual({ python: "/usr/bin/python3", script: "/usr/bin/ansible-playbook" });
  });

  it("a virtual environment's: its own python; nothing when the lines are not there", () => {
    const output =
      "ansible-playbook [core 2.18.1]\n  executable location = /opt/k8s/bin/ansible-playbook\n  python version = 3.12.3 (main) (/opt/k8s/bin/python3.12)\n";
    expect(parseAnsibleInterpreter(output)).toEqual({ python: "/opt/k8s/bin/python3.12", script: "/opt/k8s/bin/ansible-playbook" });
    expect(parseAnsibleInterpreter("ansible-playbook 2.9.27\n  python version = 3.8.10 (default)\n")).toEqual({
      python: null,
      script: null,
    });
  });
});

describe("relocateVenv", () => {
  it("gives the scripts of a moved venv its new path, and leaves links and other venvs alone", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "playform-venv-unit-"));
    temps.push(root);
    const venv = path.join(root, "entry", "venv");
    fs.mkdirSync(path.join(venv, "bin"), { recursive: true });
    fs.writeFileSync(path.join(venv, "pyvenv.cfg"), "home = /usr/bin\n");
    const from = "/jobs/7/.playform_pip_requirements/venv";
    fs.writeFileSync(path.join(venv, "bin", "pip"), `#!${from}/bin/python\nimport pip\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(venv, "bin", "activate"), `VIRTUAL_ENV="${from}"\nexport VIRTUAL_ENV\n`);
    fs.symlinkSync("/usr/bin/python3", path.join(venv, "bin", "python"));
    relocateVenv(venv, from, venv);
    expect(fs.readFileSync(path.join(venv, "bin", "pip"), "utf8")).toBe(`#!${venv}/bin/python\nimport pip\n`);
    expect(fs.statSync(path.join(venv, "bin", "pip")).mode & 0o777).toBe(0o755);
    expect(fs.readFileSync(path.join(venv, "bin", "activate"), "utf8")).toContain(`VIRTUAL_ENV="${venv}"`);
    expect(fs.readlinkSync(path.join(venv, "bin", "python"))).toBe("/usr/bin/python3");
    // Not a venv (a requirements.yml entry): nothing is touched.
    const other = path.join(root, "other");
    fs.mkdirSync(path.join(other, "bin"), { recursive: true });
    fs.writeFileSync(path.join(other, "bin", "x"), from);
    relocateVenv(other, from, other);
    expect(fs.readFileSync(path.join(other, "bin", "x"), "utf8")).toBe(from);
  });
});

describe("PipInstall with a broken environment", () => {
  /** A PipInstall of a job folder whose environment's ansible-playbook is `script`. */
  function pipInstall(script: string): { install: PipInstall; said: string[] } {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "playform-pip-unit-"));
    temps.push(root);
    const program = path.join(root, "ansible-playbook");
    fs.writeFileSync(program, script, { mode: 0o755 });
    fs.writeFileSync(path.join(root, "requirements.txt"), "netaddr\n");
    const said: string[] = [];
    const install = new PipInstall({
      ansiblePlaybook: program,
      file: "requirements.txt",
      target: path.join(root, ".playform_pip_requirements"),
      settings: { indexUrl: null, findLinks: root },
      jobDir: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      user: null,
      sandboxed: false,
      privateTmp: null,
      timeoutMs: 20_000,
      say: (line) => said.push(line),
    });
    return { install, said };
  }

  it("fails before any venv when ansible-playbook --version names no Python", async () => {
    const { install } = pipInstall("#!/bin/sh\necho 'ansible-playbook 2.9.27'\necho '  python version = 3.8.10 (default)'\n");
    await expect(install.install()).rejects.toThrow(
      /ansible-playbook --version names no Python interpreter or executable location .*the environment's Python cannot be found/,
    );
  });

  it("fails naming the Python it names when that Python is missing", async () => {
    const { install } = pipInstall(
      "#!/bin/sh\necho 'ansible-playbook [core 2.14.18]'\necho '  executable location = /usr/bin/ansible-playbook'\necho '  python version = 3.11.2 (main) (/nonexistent/bin/python3)'\n",
    );
    const error = await install.install().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequirementsInstallError);
    expect(String(error)).toMatch(/\/nonexistent\/bin\/python3 \(the environment's Python\) failed \(exit 127\)/);
  }, 30_000);
});
