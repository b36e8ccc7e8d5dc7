/**
 * A runner's environments (RTE_ENVIRONMENTS, docs/rte.md "Environments") on real parts: the
 * production bundle's RTE started with a file of three environments, each probed with real
 * ansible, and the report (sent in `rte:environments` once the probe ends, after the RTE
 * connected) read back through GET /api/runners:
 *
 * - `system`: the distribution's ansible in /usr/bin;
 * - `wrapped`: a bin folder of wrapper scripts around that ansible (as a pipx or container
 *   shim would be), with an extra collections path holding a collection the test builds and
 *   installs offline (`ansible-galaxy collection init`, `build`, `install -p` of the tarball);
 * - `broken`: a bin folder without ansible.
 *
 * The built collection must be listed in `wrapped` only, `broken` must carry its error while
 * the others are reported, and a file the RTE cannot use must stop it, naming the entry. The
 * reports are kept and listed on PostgreSQL as on SQLite (the app's local RTE, which gets
 * RTE_ENVIRONMENTS from the app's environment).
 */
import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAnsibleVersion } from "../../server/rte/environment-probe";
import { apiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";
import { ROOT, RteHarness } from "../support/rte-harness";

const RUNNER = "envs";
const COLLECTION = "playform_probe.envtest";
const COLLECTION_VERSION = "3.1.4";

const h = new RteHarness(path.join(ROOT, "test/fixtures/forms-rte-faults"), RUNNER);

beforeAll(() => h.start());
afterAll(() => h.stop());

/** A collection built and installed into `<scratch>/collections` without any network access. */
async function installCollection(scratch: string): Promise<string> {
  const source = path.join(scratch, "collection-src");
  await execa("ansible-galaxy", ["collection", "init", COLLECTION, "--init-path", source]);
  const galaxyYml = path.join(source, ...COLLECTION.split("."), "galaxy.yml");
  fs.writeFileSync(galaxyYml, fs.readFileSync(galaxyYml, "utf8").replace(/^version: .*$/m, `version: ${COLLECTION_VERSION}`));
  const built = path.join(scratch, "collection-dist");
  await execa("ansible-galaxy", ["collection", "build", path.join(source, ...COLLECTION.split(".")), "--output-path", built]);
  const tarball = path.join(built, `${COLLECTION.replace(".", "-")}-${COLLECTION_VERSION}.tar.gz`);
  const collections = path.join(scratch, "collections");
  await execa("ansible-galaxy", ["collection", "install", "--offline", "-p", collections, tarball]);
  expect(fs.existsSync(path.join(collections, "ansible_collections", ...COLLECTION.split("."), "MANIFEST.json"))).toBe(true);
  return collections;
}

describe("an RTE with RTE_ENVIRONMENTS", () => {
  it("reports each environment's versions and collections, and a broken one's error, in GET /api/runners", async () => {
    const folder = path.join(h.scratch, "environments");
    fs.mkdirSync(folder);
    await installCollection(folder);
    const wrapped = path.join(folder, "wrapped", "bin");
    fs.mkdirSync(wrapped, { recursive: true });
    // The wrapper says who ran it: the probe runs as playbooks do, never as the RTE's root.
    const ranAs = path.join(h.scratch, "wrapped-ran-as");
    for (const program of ["ansible-playbook", "ansible-galaxy"])
      fs.writeFileSync(path.join(wrapped, program), `#!/bin/sh\nid -un > ${ranAs}\nexec /usr/bin/${program} "$@"\n`, { mode: 0o755 });
    fs.mkdirSync(path.join(folder, "broken", "bin"), { recursive: true });
    // Relative folders are the file's folder's: what the test checks `wrapped` and `broken` by.
    const file = path.join(folder, "environments.yaml");
    fs.writeFileSync(
      file,
      [
        "environments:",
        "  - name: system",
        "    bin: /usr/bin",
        "    description: the distribution's ansible",
        "  - name: wrapped",
        "    bin: wrapped/bin",
        "    collectionsPaths: [collections]",
        "  - name: broken",
        "    bin: broken/bin",
      ].join("\n"),
    );
    const expected = parseAnsibleVersion((await execa("/usr/bin/ansible-playbook", ["--version"])).stdout)!;
    expect(expected.ansibleCore).toMatch(/^2\.\d+/);

    const rte = h.startRte({ instanceId: "envs-0", ...h.dirs("envs-0"), env: { RTE_ENVIRONMENTS: file } });
    const runner = await h.waitUntil(
      "the runner connected with its environments",
      async () => {
        const runners = (await h.api.get("/api/runners")).runners as any[];
        const found = runners.find((r) => r.name === RUNNER);
        return found?.instances.some((i: any) => i.connected && i.environments.length > 0) && found;
      },
      90_000,
    );
    const byName = Object.fromEntries((runner.environments as any[]).map((e) => [e.name, e]));
    expect(Object.keys(byName)).toEqual(["broken", "system", "wrapped"]);
    for (const name of ["system", "wrapped"]) {
      expect(byName[name]).toMatchObject({ ansibleCore: expected.ansibleCore, python: expected.python, error: null });
    }
    expect(byName.system.description).toBe("the distribution's ansible");
    const built = { name: COLLECTION, version: COLLECTION_VERSION };
    expect(byName.wrapped.collections).toContainEqual(built);
    expect(byName.system.collections).not.toContainEqual(expect.objectContaining({ name: COLLECTION }));
    // The distribution's ansible brings its collections, which both see.
    expect(byName.system.collections.length).toBe(byName.wrapped.collections.length - 1);
    expect(byName.broken).toEqual({
      name: "broken",
      description: "",
      ansibleCore: null,
      python: null,
      collections: [],
      error: `no ansible-playbook in ${path.join(folder, "broken", "bin")} (or it is not executable)`,
    });
    expect(fs.readFileSync(ranAs, "utf8").trim()).toBe(process.getuid?.() === 0 ? "playform-run" : os.userInfo().username);
    // The instance's own list is in the file's order; the runner's, sorted by name, is the same
    // here: it has only this instance.
    const reported = runner.instances[0].environments as any[];
    expect(reported.map((e) => e.name)).toEqual(["system", "wrapped", "broken"]);
    expect([...reported].sort((a, b) => a.name.localeCompare(b.name))).toEqual(runner.environments);
    // The probe's time, as the RTE logs it (docs/rte.md quotes it), and the broken one's error.
    expect(rte.output()).toMatch(/3 environment\(s\) probed in \d+ ms: system \(ansible-core /);
    expect(rte.output()).toContain(`environment broken: no ansible-playbook in ${path.join(folder, "broken", "bin")}`);

    // The app's local RTE has no RTE_ENVIRONMENTS: one environment, `default`, the ansible on PATH
    // (reported by now: its probe ran beside this one's).
    const local = await h.waitUntil(
      "the local runner's environments report",
      async () => ((await h.api.get("/api/runners")).runners as any[]).find((r) => r.name === "local" && r.environments.length > 0),
      60_000,
    );
    expect(local.environments.map((e: any) => [e.name, e.ansibleCore, e.error])).toEqual([["default", expected.ansibleCore, null]]);
  });

  it("refuses to start with a file it cannot use, naming the file, the entry and the field", async () => {
    const file = path.join(h.scratch, "bad-environments.yaml");
    fs.writeFileSync(
      file,
      "environments:\n  - name: ok\n    bin: /usr/bin\n  - name: py311\n    bin: /usr/bin\n    collectionPaths: [/opt/c]\n",
    );
    const rte = h.startRte({ instanceId: "envs-bad", ...h.dirs("envs-bad"), env: { RTE_ENVIRONMENTS: file } });
    expect((await rte.exit).code).toBe(2);
    expect(rte.output()).toContain(`RTE_ENVIRONMENTS=${file}: environment 2 (\\"py311\\"): unknown field collectionPaths`);
  });

  it("are kept and listed on PostgreSQL too, through the local RTE of the app", async () => {
    const file = path.join(h.scratch, "local-environments.yaml");
    fs.writeFileSync(file, "environments:\n  - name: system\n    bin: /usr/bin\n  - name: broken\n    bin: /nonexistent/bin\n");
    let postgres: TestPostgres | undefined;
    let app: RunningPlayform | undefined;
    try {
      postgres = await startPostgres();
      app = await startPlayform({ env: { DATABASE_URL: postgres.url, RTE_ENVIRONMENTS: file } });
      const api = apiClient(app, await adminToken(app));
      // The local RTE connects before its probe ends, and reports in `rte:environments` after.
      const local = await h.waitUntil(
        "the local runner's environments report",
        async () => {
          const found = ((await api.get("/api/runners")).runners as any[]).find((r) => r.name === "local");
          return found?.instances.some((i: any) => i.connected && i.environments.length > 0) && found;
        },
        60_000,
      );
      expect(local.instances.find((i: any) => i.connected).environments.map((e: any) => e.name)).toEqual(["system", "broken"]);
      expect(local.environments.map((e: any) => [e.name, e.ansibleCore !== null, e.collections.length > 0, e.error])).toEqual([
        ["broken", false, false, "the folder /nonexistent/bin does not exist"],
        ["system", true, true, null],
      ]);
    } finally {
      await app?.stop();
      await postgres?.stop();
    }
  });
});
