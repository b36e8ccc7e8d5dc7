import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { manifestDigest, requirementsKey } from "../../server/rte/requirements";
import { relocateVenv } from "../../server/rte/requirements-cache";
import { PipInstall, RequirementsInstallError } from "../../server/rte/requirements-install";
import {
  findPipRequirementsFile,
  isPlainPipRequirements,
  parseAnsibleInterpreter,
  pipInstallArgs,
  pipRequirementsKey,
  readPipRequirements,
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

describe("isPlainPipRequirements", () => {
  it("is true of plain requirements (extras, versions, markers, hashes) and options that read nothing local", () => {
    const text = [
      "# pinned",
      "netaddr==0.8.0  # a comment",
      "jmespath>=1.0,<2; python_version >= '3.8'",
      "requests[socks, security] ~= 2.31",
      "Zope.Interface",
      "cryptography==42.0.5 --hash=sha256:abc123 --hash sha256:DEF456",
      "\t",
      "--pre",
      "--prefer-binary",
      "--only-binary=:all:",
      "--no-binary cryptography,lxml",
      "--require-hashes",
      "--no-index",
      "-i https://pypi.internal/simple",
      "--extra-index-url=http://mirror.example:8080/simple/",
      "",
    ].join("\r\n");
    expect(isPlainPipRequirements(text)).toBe(true);
    expect(isPlainPipRequirements("")).toBe(true);
  });

  it("is false as soon as one line may read a file of the job, or is not understood", () => {
    const unplain = [
      "-r more.txt",
      "--requirement=more.txt",
      "-c constraints.txt",
      "-e ./pkg",
      "--editable=./pkg",
      "-e git+https://example.com/z.git#egg=z",
      "--find-links ./wheels",
      "-f ./wheels",
      "-f https://example.com/wheels",
      "-i ./simple",
      "--index-url file:///srv/simple",
      "--extra-index-url ./simple",
      "vendor/pkg",
      "./pkg[extra]",
      ".",
      "../pkg",
      "/srv/pkg",
      "pkg @ file:./pkg",
      "pkg@https://example.com/pkg-1.0.tar.gz",
      "https://example.com/y-1.0-py3-none-any.whl",
      "acme-1.0-py3-none-any.whl",
      "acme.tar.gz",
      "acme==1.0.zip",
      "pkg ; python_version > '3' -e .",
      "netaddr==${VERSION}",
      "netaddr==0.8.0 \\",
      "netaddr==0.8.0 --config-settings=x=./y",
      "--use-feature=truststore",
      "netaddr==0.8.0\r-e ./pkg",
      "netaddr==0.8.0 #\u2028-e ./pkg",
      "\ufeff-e ./pkg",
    ];
    for (const line of unplain) expect(isPlainPipRequirements(`netaddr==0.8.0\n${line}\n`), JSON.stringify(line)).toBe(false);
  });

  // pip decodes by a BOM or a PEP 263 declaration (auto_decode): in UTF-7 `+AAo-` is a line break (attack 8).
  it("is false of a file pip may decode otherwise: a BOM, a coding declaration anywhere, any byte not printable ASCII", () => {
    const plain = "--no-index\nplayform-poison==1.0.0\n";
    expect(isPlainPipRequirements(plain)).toBe(true);
    for (const text of [
      `# -*- coding: utf-7 -*-\n${plain}`,
      `\n# vim: set fileencoding=utf-7 :\n${plain}`,
      `# coding=latin-1\n${plain}`,
      `${plain}# coding: utf-8\n`,
      `\ufeff${plain}`,
      `${plain}# caf\u00e9\n`,
      `${plain}netaddr==0.8.0\u0000\n`,
    ]) {
      expect(isPlainPipRequirements(text), JSON.stringify(text)).toBe(false);
    }
    expect(isPlainPipRequirements(Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from(plain)]))).toBe(false);
    expect(isPlainPipRequirements(Buffer.from([0xff, 0xfe, ...Buffer.from(plain)]))).toBe(false);
  });

  // -i is a short option: optparse's value of `-i=URL` is `=URL`, a folder of the form's when it exists (attack 8).
  it("takes an index URL only as `-i URL`, `--index-url URL|=URL`, `--extra-index-url URL|=URL`", () => {
    for (const line of [
      "-i https://x/simple",
      "-i\thttps://x/simple",
      "--index-url=https://x/simple",
      "--extra-index-url https://x/simple",
    ]) {
      expect(isPlainPipRequirements(`${line}\nnetaddr==0.8.0\n`), line).toBe(true);
    }
    for (const line of ["-i=https://x/simple", "-ihttps://x/simple", "-i = https://x/simple", "--index-url= https://x/simple"]) {
      expect(isPlainPipRequirements(`${line}\nnetaddr==0.8.0\n`), line).toBe(false);
    }
  });
});

describe("readPipRequirements", () => {
  const context = { environment: "default", ansible: "2.14.18", python: "3.11.2", indexUrl: null, findLinks: null };
  const keyOf = (text: string, wheel: string) => {
    const job = fs.mkdtempSync(path.join(os.tmpdir(), "playform-pip-key-"));
    temps.push(job);
    fs.writeFileSync(path.join(job, "requirements.txt"), text);
    const manifest = [
      { path: "requirements.txt", sha256: "r" },
      { path: "playbook.yml", sha256: "p" },
      { path: "wheels/playform_poison-1.0.0-py3-none-any.whl", sha256: wheel },
    ];
    return readPipRequirements(job, "requirements.txt", context, (relative) => manifestDigest(manifest, relative)).key;
  };

  it("keys a plain file alike in every form, whatever else the forms hold", () => {
    expect(keyOf("netaddr==0.8.0\n", "attacker")).toBe(keyOf("netaddr==0.8.0\n", "victim"));
  });

  it("keys a file that may read the form's files by all of them (attack 7: --find-links ./wheels)", () => {
    for (const text of [
      "--no-index\n--find-links ./wheels\nplayform-poison==1.0.0\n",
      "-r more.txt\n",
      "vendor/pkg\n",
      "pkg @ file:./pkg\n",
    ]) {
      expect(keyOf(text, "attacker"), text).not.toBe(keyOf(text, "victim"));
      expect(keyOf(text, "same"), text).toBe(keyOf(text, "same"));
    }
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
    jobFiles: "aa",
  };

  it("changes with every input", () => {
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
      { jobFiles: "bb" },
      { jobFiles: null },
    ];
    for (const change of changed) expect(pipRequirementsKey({ ...base, ...change }), JSON.stringify(change)).not.toBe(key);
  });

  it("is never a requirements.yml key of the same inputs", () => {
    const galaxy = requirementsKey({ environment: "default", ansible: "2.14.18", galaxyServer: null, files: [base.file], local: [] });
    expect(pipRequirementsKey({ ...base, findLinks: null, python: null, jobFiles: null })).not.toBe(galaxy);
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
