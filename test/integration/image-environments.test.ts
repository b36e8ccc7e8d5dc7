/**
 * The runner image's extra Ansible environments (deploy/environments/build.sh, run by the
 * Dockerfile's rte stage with its build args): a virtual environment per NAME=REQUIREMENTS,
 * installed by pip from a folder of wheels only (as from an internal mirror), and an
 * environments.yaml the RTE reads (RTE_ENVIRONMENTS) listing them after `default`. The example
 * file in deploy/environments reads as the RTE reads it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnvironments } from "../../server/rte/environments";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BUILD = path.join(ROOT, "deploy/environments/build.sh");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-image-envs-"));
const wheels = path.join(dir, "wheels");

beforeAll(async () => {
  // A package built offline into a wheel with Debian's setuptools (no build isolation: no index).
  const pkg = path.join(dir, "pkg");
  fs.mkdirSync(path.join(pkg, "playform_imagedemo"), { recursive: true });
  fs.writeFileSync(
    path.join(pkg, "pyproject.toml"),
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "playform-imagedemo"\nversion = "2.0.0"\n',
  );
  fs.writeFileSync(path.join(pkg, "playform_imagedemo", "__init__.py"), 'VERSION = "2.0.0"\n');
  await execa("/usr/bin/python3", ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", wheels, pkg]);
}, 120_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const build = (out: string, specs: string[]) =>
  execa(BUILD, [out, ...specs], {
    reject: false,
    all: true,
    // As the Dockerfile passes its build args: an index not given arrives empty.
    env: { PYTHON: "/usr/bin/python3", PIP_INDEX_URL: "", PIP_FIND_LINKS: wheels, PIP_NO_INDEX: "1" },
  });

describe("deploy/environments/build.sh", () => {
  it("makes a virtual environment per NAME=REQUIREMENTS from a folder of wheels, and the environments.yaml the RTE reads", async () => {
    const out = path.join(dir, "opt-ansible");
    const requirements = path.join(dir, "demo.txt");
    fs.writeFileSync(requirements, "# the demo environment\nplayform-imagedemo==2.0.0\n");
    const result = await build(out, [`demo=${requirements}`, "inline=playform-imagedemo>=2,<3"]);
    expect(result.exitCode, result.all).toBe(0);
    for (const name of ["demo", "inline"]) {
      const version = await execa(path.join(out, name, "bin/python"), [
        "-c",
        "import playform_imagedemo; print(playform_imagedemo.VERSION)",
      ]);
      expect(version.stdout).toBe("2.0.0");
    }
    const environments = loadEnvironments(path.join(out, "environments.yaml"), "ansible-playbook");
    expect(environments.map((e) => [e.name, e.bin])).toEqual([
      ["default", "/usr/bin"],
      ["demo", path.join(out, "demo/bin")],
      ["inline", path.join(out, "inline/bin")],
    ]);
    expect(environments[2]!.description).toBe("playform-imagedemo>=2,<3");
  }, 180_000);

  it("refuses a spec that is not NAME=REQUIREMENTS, or the name default, writing nothing", async () => {
    const out = path.join(dir, "refused");
    const bad = await build(out, ["just-a-name"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.all).toContain("'just-a-name' is not NAME=REQUIREMENTS");
    const reserved = await build(out, ["default=playform-imagedemo"]);
    expect(reserved.exitCode).toBe(2);
    expect(reserved.all).toContain("environment name 'default' must be 1-32 of a-z 0-9 . _ - and not 'default'");
    expect(fs.existsSync(path.join(out, "environments.yaml"))).toBe(false);
  });

  it("fails with pip's message for a package the wheels do not have", async () => {
    const result = await build(path.join(dir, "missing"), ["gone=playform-not-there"]);
    expect(result.exitCode).not.toBe(0);
    expect(result.all).toMatch(/No matching distribution found for playform-not-there/);
  }, 120_000);
});

describe("deploy/environments/environments.example.yaml", () => {
  it("reads as the RTE reads RTE_ENVIRONMENTS: default and one shaped for kubespray", () => {
    const environments = loadEnvironments(path.join(ROOT, "deploy/environments/environments.example.yaml"), "ansible-playbook");
    expect(environments.map((e) => [e.name, e.bin])).toEqual([
      ["default", "/usr/bin"],
      ["k8s-2.18", "/opt/ansible/k8s-2.18/bin"],
    ]);
  });
});
