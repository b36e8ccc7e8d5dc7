import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { environmentEnv, environmentProgram } from "../../server/rte/playbook-command";
import {
  RequirementsFileError,
  findRequirementsFiles,
  localDigest,
  manifestDigest,
  parseRequirements,
  readJobRequirements,
  requirementsKey,
  type KeyInput,
} from "../../server/rte/requirements";
import { InstallCancelled, RequirementsCache, seal } from "../../server/rte/requirements-cache";
import { galaxyCommands } from "../../server/rte/requirements-install";
import { wrapPlaybook } from "../../server/rte/sandbox";

const temps: string[] = [];
function temp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-req-unit-"));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("findRequirementsFiles", () => {
  it("looks beside the playbook and in its collections/ and roles/ folders", () => {
    const files = new Set(["requirements.yml", "roles/requirements.yml", "deploy/collections/requirements.yml", "deploy/site.yml"]);
    expect(findRequirementsFiles("site.yml", (p) => files.has(p))).toEqual(["requirements.yml", "roles/requirements.yml"]);
    expect(findRequirementsFiles("deploy/site.yml", (p) => files.has(p))).toEqual(["deploy/collections/requirements.yml"]);
    expect(findRequirementsFiles("other/site.yml", (p) => files.has(p))).toEqual([]);
  });
});

describe("parseRequirements", () => {
  it("reads the v2 form: collections and roles, and the local paths they name", () => {
    const parsed = parseRequirements(
      [
        "collections:",
        "  - community.general",
        "  - name: vendor/acme-tools-1.0.0.tar.gz",
        "    type: file",
        "  - name: ./collections/acme/web",
        "    type: dir",
        "  - name: https://example.com/x.tar.gz",
        "    type: url",
        "roles:",
        "  - src: git+file:///srv/greeter",
        "    name: greeter",
        "  - src: vendor/role.tar.gz",
      ].join("\n"),
      "requirements.yml",
    );
    expect(parsed).toEqual({
      collections: 4,
      roles: 2,
      localPaths: ["vendor/acme-tools-1.0.0.tar.gz", "./collections/acme/web", "vendor/role.tar.gz"],
      galaxyNames: null,
    });
  });

  it("reads a plain list as roles, and an empty file as nothing to do", () => {
    expect(parseRequirements("- geerlingguy.nginx\n- src: ./roles/x.tar.gz\n  name: x\n", "roles/requirements.yml")).toEqual({
      collections: 0,
      roles: 2,
      localPaths: ["./roles/x.tar.gz"],
      galaxyNames: null,
    });
    expect(parseRequirements("", "requirements.yml")).toEqual({ collections: 0, roles: 0, localPaths: [], galaxyNames: [] });
  });

  // ansible-galaxy takes for a path more than what is written as one (attack 8): only Galaxy names and URLs are plainly remote.
  it("lists the Galaxy names of a file whose every entry is plainly remote", () => {
    const text = [
      "collections:",
      "  - community.general",
      "  - name: ansible.posix",
      "    version: '>=1.5.0'",
      "  - name: acme.tools",
      "    type: galaxy",
      "    source: https://galaxy.internal/api/",
    ].join("\n");
    expect(parseRequirements(text, "requirements.yml").galaxyNames).toEqual(["community.general", "ansible.posix", "acme.tools"]);
    expect(parseRequirements("collections:\n  - community.general\nroles: []\n", "requirements.yml").galaxyNames).toEqual([
      "community.general",
    ]);
  });

  // A role's dependencies are installed from the job's folder when a file there has their name (attack 9).
  it("is never plainly remote with a role, however it is written", () => {
    for (const text of [
      "roles:\n  - geerlingguy.nginx\n",
      "roles:\n  - nginx_plain\n",
      "roles:\n  - https://example.com/roles/x.tar.gz\n",
      "roles:\n  - name: greeter\n    src: git+https://example.com/greeter.git\n    version: main\n    scm: git\n",
      "roles:\n  - src: acme.web\n    version: 1.0\n",
      "collections:\n  - community.general\nroles:\n  - name: base\n    src: https://example.com/base.tar.gz\n",
      "- geerlingguy.nginx\n",
    ]) {
      expect(parseRequirements(text, "requirements.yml").galaxyNames, JSON.stringify(text)).toBeNull();
    }
  });

  it("is not plainly remote for anything else: paths, bare names, types, local sources, other keys, YAML indirection", () => {
    for (const text of [
      "collections:\n  - poisoncoll\n",
      "collections:\n  - name: poisoncoll\n",
      "collections:\n  - ./coll\n",
      "collections:\n  - name: acme.tools\n    type: dir\n",
      "collections:\n  - name: acme.tools\n    type: file\n",
      "collections:\n  - name: acme.tools\n    type: git\n",
      "collections:\n  - name: acme.tools\n    source: ./coll\n",
      "collections:\n  - name: acme.tools\n    signatures: [file:///x]\n",
      "collections:\n  - https://example.com/x.tar.gz\n",
      "collections:\n  - <<: {name: ./poisoncoll, type: dir}\n",
      "collections:\n  - &c community.general\n  - *c\n",
      "collections:\n  - !!str community.general\n",
      "roles:\n  - src: poisonrole\n    name: x/../y\n",
      "roles:\n  - src: ./role.tar.gz\n",
      "roles:\n  - src: file:///srv/role.tar.gz\n",
      "roles:\n  - src: git@github.com:x/y.git\n",
      "roles:\n  - name: x\n    src: https://example.com/x.git\n    scm: hg\n",
      "roles:\n  - include: more.yml\n",
      "roles:\n  - geerlingguy.nginx,1.0,nginx\n",
      "- vendor/role.tar.gz\n",
    ]) {
      expect(parseRequirements(text, "requirements.yml").galaxyNames, JSON.stringify(text)).toBeNull();
    }
  });

  it("refuses what is not a requirements file, naming it", () => {
    expect(() => parseRequirements("collections: community.general\n", "requirements.yml")).toThrow(
      new RequirementsFileError("requirements.yml: collections: must be a list"),
    );
    expect(() => parseRequirements("just text", "r.yml")).toThrow(/r\.yml: must be a list of roles or a mapping/);
    expect(() => parseRequirements("a: [", "r.yml")).toThrow(/r\.yml: not valid YAML/);
  });
});

describe("the cache key", () => {
  const base: KeyInput = {
    environment: "default",
    ansible: "2.14.18",
    galaxyServer: null,
    files: [{ path: "requirements.yml", bytes: Buffer.from("collections: []\n") }],
    local: [],
  };

  it("changes with each input, and only with them", () => {
    const key = requirementsKey(base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(requirementsKey({ ...base })).toBe(key);
    for (const changed of [
      { environment: "k8s" },
      { ansible: "2.18.1" },
      { galaxyServer: "https://galaxy.internal" },
      { files: [{ path: "requirements.yml", bytes: Buffer.from("collections: [] \n") }] },
      { files: [{ path: "roles/requirements.yml", bytes: Buffer.from("collections: []\n") }] },
      { local: [{ path: "vendor/a.tar.gz", digest: "00" }] },
    ]) {
      expect(requirementsKey({ ...base, ...changed }), JSON.stringify(changed)).not.toBe(key);
    }
  });

  it("holds the job's files unless every entry is plainly remote and names no file or folder of the job", () => {
    const context = { environment: "default", ansible: "2.14.18", galaxyServer: null };
    const keyOf = (text: string, files: Record<string, string>) => {
      const job = temp();
      fs.writeFileSync(path.join(job, "requirements.yml"), text);
      for (const [file, bytes] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(job, file)), { recursive: true });
        fs.writeFileSync(path.join(job, file), bytes);
      }
      return readJobRequirements(job, ["requirements.yml"], context).key;
    };
    const remote = "collections:\n  - community.general\n  - name: ansible.posix\n    version: '>=1.5.0'\n";
    expect(keyOf(remote, { "site.yml": "one" })).toBe(keyOf(remote, { "site.yml": "two" }));
    // The same name, a folder of the job: galaxy may read it.
    expect(keyOf(remote, { "community.general/galaxy.yml": "one" })).not.toBe(keyOf(remote, { "community.general/galaxy.yml": "two" }));
    for (const text of [
      "roles:\n  - geerlingguy.nginx\n",
      "roles:\n  - name: base\n    src: https://example.com/base.tar.gz\n",
      "collections:\n  - poisoncoll\n",
      "roles:\n  - src: vendor/role\n",
      "collections:\n  - <<: {name: ./c, type: dir}\n",
    ]) {
      expect(keyOf(text, { "site.yml": "one" }), text).not.toBe(keyOf(text, { "site.yml": "two" }));
    }
  });

  it("changes when a tarball the file names changes, and not for files outside the job folder", () => {
    const job = temp();
    fs.mkdirSync(path.join(job, "vendor"));
    fs.writeFileSync(path.join(job, "requirements.yml"), "collections:\n  - name: vendor/acme-tools-1.0.0.tar.gz\n    type: file\n");
    fs.writeFileSync(path.join(job, "vendor", "acme-tools-1.0.0.tar.gz"), "one");
    const context = { environment: "default", ansible: "2.14.18", galaxyServer: null };
    const first = readJobRequirements(job, ["requirements.yml"], context);
    expect(first.files).toEqual([{ path: "requirements.yml", collections: 1, roles: 0 }]);
    fs.writeFileSync(path.join(job, "vendor", "acme-tools-1.0.0.tar.gz"), "two");
    const second = readJobRequirements(job, ["requirements.yml"], context);
    expect(second.key).not.toBe(first.key);
    fs.rmSync(path.join(job, "vendor", "acme-tools-1.0.0.tar.gz"));
    expect(readJobRequirements(job, ["requirements.yml"], context).key).not.toBe(second.key);
    // Never read for the key: whatever of the runner's it names.
    expect(localDigest(job, "/etc/passwd")).toBeNull();
    expect(localDigest(job, "../outside.tar.gz")).toBeNull();
    // A folder: its files' names and bytes.
    fs.mkdirSync(path.join(job, "coll"));
    fs.writeFileSync(path.join(job, "coll", "galaxy.yml"), "a");
    const dirDigest = localDigest(job, "./coll");
    fs.writeFileSync(path.join(job, "coll", "galaxy.yml"), "b");
    expect(localDigest(job, "./coll")).not.toBe(dirDigest);
  });
});

describe("manifestDigest", () => {
  const manifest = [
    { path: "vendor/acme-tools-1.0.0.tar.gz", sha256: "11" },
    { path: "coll/galaxy.yml", sha256: "22" },
    { path: "coll/plugins/modules/x.py", sha256: "33" },
  ];

  it("takes a named file's hash from the job's manifest, never reading it", () => {
    expect(manifestDigest(manifest, "vendor/acme-tools-1.0.0.tar.gz")).toBe("11");
    expect(manifestDigest(manifest, "./vendor/acme-tools-1.0.0.tar.gz")).toBe("11");
    expect(manifestDigest(manifest, "vendor/missing.tar.gz")).toBeNull();
    expect(manifestDigest(manifest, "/etc/passwd")).toBeNull();
    expect(manifestDigest(manifest, "../vendor/acme-tools-1.0.0.tar.gz")).toBeNull();
  });

  it("digests a folder's files by path and hash: a changed file changes it", () => {
    const digest = manifestDigest(manifest, "./coll/");
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(manifestDigest(manifest, "coll")).toBe(digest);
    const changed = manifest.map((entry) => (entry.path === "coll/galaxy.yml" ? { ...entry, sha256: "44" } : entry));
    expect(manifestDigest(changed, "coll")).not.toBe(digest);
  });

  it("changes the job's key when a named tarball's content (its manifest hash) changes", () => {
    const job = temp();
    fs.writeFileSync(path.join(job, "requirements.yml"), "collections:\n  - name: vendor/acme-tools-1.0.0.tar.gz\n    type: file\n");
    const context = { environment: "default", ansible: "2.14.18", galaxyServer: null };
    const keyWith = (sha256: string) =>
      readJobRequirements(job, ["requirements.yml"], context, (written) =>
        manifestDigest([{ path: "vendor/acme-tools-1.0.0.tar.gz", sha256 }], written),
      ).key;
    expect(keyWith("aa")).toBe(keyWith("aa"));
    expect(keyWith("aa")).not.toBe(keyWith("bb"));
  });
});

describe("the install's commands and the playbook's paths", () => {
  it("runs collection and role installs only for what each file holds, with the Galaxy server", () => {
    const files = [
      { path: "requirements.yml", collections: 2, roles: 1 },
      { path: "roles/requirements.yml", collections: 0, roles: 3 },
    ];
    expect(galaxyCommands({ files, target: "/j/.playform_requirements", galaxyServer: "https://galaxy.internal" })).toEqual([
      [
        "collection",
        "install",
        "-r",
        "requirements.yml",
        "-p",
        "/j/.playform_requirements/collections",
        "--server",
        "https://galaxy.internal",
      ],
      ["role", "install", "-r", "requirements.yml", "-p", "/j/.playform_requirements/roles", "--server", "https://galaxy.internal"],
      ["role", "install", "-r", "roles/requirements.yml", "-p", "/j/.playform_requirements/roles", "--server", "https://galaxy.internal"],
    ]);
    expect(galaxyCommands({ files: files.slice(1), target: "/t", galaxyServer: null })).toEqual([
      ["role", "install", "-r", "roles/requirements.yml", "-p", "/t/roles"],
    ]);
  });

  it("puts the installed requirements before the environment's paths and the runner's", () => {
    const environment = { bin: "/opt/a/bin", collectionsPaths: ["/opt/a/coll"], rolesPaths: [] };
    const requirements = { collections: ["/cache/k/collections"], roles: ["/cache/k/roles"] };
    const env = environmentEnv({ PATH: "/usr/bin", ANSIBLE_ROLES_PATH: "/srv/roles" }, environment, requirements);
    expect(env.ANSIBLE_COLLECTIONS_PATH).toBe("/cache/k/collections:/opt/a/coll:~/.ansible/collections:/usr/share/ansible/collections");
    expect(env.ANSIBLE_ROLES_PATH).toBe("/cache/k/roles:/srv/roles");
    expect(environmentEnv({ PATH: "/usr/bin" }, environment).ANSIBLE_ROLES_PATH).toBeUndefined();
    expect(environmentProgram(environment, "ansible-galaxy")).toBe("/opt/a/bin/ansible-galaxy");
    expect(
      environmentProgram({ bin: null, collectionsPaths: [], rolesPaths: [], ansiblePlaybook: "/x/ansible-playbook" }, "ansible-galaxy"),
    ).toBe("/x/ansible-galaxy");
  });

  it("mounts the cache entry read-only in the sandbox", () => {
    const wrapped = wrapPlaybook({ file: "ansible-playbook", args: ["site.yml"] }, "/p/init.py", null, true, null, ["/cache/k"]);
    // The last mount, over the system's read-only bind and the tmpfs hiding the cache's root.
    const at = wrapped.args.lastIndexOf("--ro-bind");
    expect(wrapped.args.slice(at, at + 3)).toEqual(["--ro-bind", "/cache/k", "/cache/k"]);
    expect(wrapped.args.indexOf("--")).toBeGreaterThan(at);
    expect(wrapPlaybook({ file: "a", args: [] }, "/p/init.py", null, false, null, ["/cache/k"]).args).not.toContain("--ro-bind");
  });
});

describe("RequirementsCache", () => {
  const KEY = "a".repeat(64);
  const producer =
    (root: string, counter: { n: number }, delayMs = 50) =>
    async () => {
      counter.n++;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const out = fs.mkdtempSync(path.join(root, "job-"));
      fs.mkdirSync(path.join(out, "collections", "ansible_collections", "ns", "c"), { recursive: true });
      fs.writeFileSync(path.join(out, "collections", "ansible_collections", "ns", "c", "MANIFEST.json"), "{}");
      return out;
    };
  const quiet = { say: () => undefined, cancelled: () => false };

  it("installs once for jobs asking at the same time, then serves the entry from the cache", async () => {
    const root = temp();
    const cache = new RequirementsCache(path.join(root, "requirements"), 60_000);
    const counter = { n: 0 };
    const said: string[] = [];
    const options = { ...quiet, install: producer(root, counter), say: (line: string) => said.push(line) };
    const [a, b] = await Promise.all([cache.obtain(KEY, options), cache.obtain(KEY, options)]);
    expect(counter.n).toBe(1);
    expect([a.installed, b.installed].sort()).toEqual([false, true]);
    expect(said).toEqual([`requirements: another job is installing them (key ${KEY.slice(0, 12)}): waiting`]);
    const again = await cache.obtain(KEY, options);
    expect(again).toMatchObject({ installed: false, folder: path.join(root, "requirements", KEY) });
    expect(counter.n).toBe(1);
    // Held by the three uses (one lease file of this process), until the last one is released.
    const lease = `${KEY}.use-${os.hostname()}-${process.pid}`;
    expect(fs.readdirSync(path.join(root, "requirements")).sort()).toEqual([KEY, lease]);
    for (let i = 0; i < 3; i++) cache.release(KEY);
    expect(fs.readdirSync(path.join(root, "requirements"))).toEqual([KEY]);
  });

  it("a job waiting for another job's install stops waiting when it is cancelled", async () => {
    const root = temp();
    const cache = new RequirementsCache(path.join(root, "requirements"), 60_000);
    const counter = { n: 0 };
    const slow = cache.obtain(KEY, { ...quiet, install: producer(root, counter, 3_000) });
    let cancelled = false;
    const waiting = cache.obtain(KEY, { ...quiet, install: producer(root, counter), cancelled: () => cancelled });
    setTimeout(() => (cancelled = true), 200);
    const started = Date.now();
    await expect(waiting).rejects.toThrow(InstallCancelled);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await slow).installed).toBe(true);
    expect(counter.n).toBe(1);
  });

  it("installs once across two caches on one folder (two runner processes), through the lock file", async () => {
    const root = temp();
    const dir = path.join(root, "requirements");
    const one = new RequirementsCache(dir, 60_000);
    const two = new RequirementsCache(dir, 60_000);
    const counter = { n: 0 };
    const said: string[] = [];
    const options = { ...quiet, install: producer(root, counter, 800), say: (line: string) => said.push(line) };
    const [a, b] = await Promise.all([one.obtain(KEY, options), two.obtain(KEY, options)]);
    expect(counter.n).toBe(1);
    expect(a.folder).toBe(b.folder);
    expect(said.some((line) => line.startsWith("requirements: another runner process (pid "))).toBe(true);
    one.release(KEY);
    two.release(KEY);
    expect(fs.readdirSync(dir)).toEqual([KEY]);
  });

  it("keeps nothing of a failed install, and tries again next time; takes over a dead holder's lock", async () => {
    const root = temp();
    const dir = path.join(root, "requirements");
    const cache = new RequirementsCache(dir, 60_000);
    const failing = { ...quiet, install: () => Promise.reject(new Error("galaxy said no")) };
    await expect(cache.obtain(KEY, failing)).rejects.toThrow("galaxy said no");
    // Only its record, for the other processes that waited on it (requirements-cache-shared-failure.test.ts).
    expect(fs.readdirSync(dir)).toEqual([expect.stringMatching(new RegExp(`^${KEY}\\.failed-[0-9a-f]{16}$`))]);
    // A lock left by a process that is gone, and its half-moved staging folder.
    fs.writeFileSync(path.join(dir, `${KEY}.lock`), JSON.stringify({ pid: 2 ** 22 + 1, host: os.hostname(), since: Date.now() }));
    const counter = { n: 0 };
    const entry = await cache.obtain(KEY, { ...quiet, install: producer(root, counter) });
    expect(entry.installed).toBe(true);
    cache.release(KEY);
    fs.mkdirSync(path.join(dir, `.staging-${os.hostname()}-${2 ** 22 + 1}-abcd`));
    new RequirementsCache(dir, 60_000);
    expect(fs.readdirSync(dir)).toEqual([KEY]);
  });

  it("jobs waiting for a failed install get its failure, not an install of their own; a later job tries again", async () => {
    const root = temp();
    const cache = new RequirementsCache(path.join(root, "requirements"), 60_000);
    let attempts = 0;
    const failing = {
      ...quiet,
      install: async () => {
        attempts++;
        await new Promise((resolve) => setTimeout(resolve, 100));
        throw new Error(`galaxy said no (attempt ${attempts})`);
      },
    };
    const results = await Promise.allSettled([1, 2, 3].map(() => cache.obtain(KEY, failing)));
    expect(attempts).toBe(1);
    expect(results.map((r) => (r.status === "rejected" ? (r.reason as Error).message : "fulfilled"))).toEqual(
      Array(3).fill("galaxy said no (attempt 1)"),
    );
    await expect(cache.obtain(KEY, failing)).rejects.toThrow("galaxy said no (attempt 2)");
  });

  it("a job waiting for an install that was cancelled installs itself", async () => {
    const root = temp();
    const cache = new RequirementsCache(path.join(root, "requirements"), 60_000);
    let cancelled = false;
    const first = cache.obtain(KEY, {
      ...quiet,
      cancelled: () => cancelled,
      install: async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        cancelled = true;
        throw new InstallCancelled("the requirements install was cancelled");
      },
    });
    const counter = { n: 0 };
    const second = cache.obtain(KEY, { ...quiet, install: producer(root, counter) });
    await expect(first).rejects.toThrow(InstallCancelled);
    expect((await second).installed).toBe(true);
    expect(counter.n).toBe(1);
  });

  it("seals an install: the RTE's, no write for others, no set-id bit, no FIFO", () => {
    const root = temp();
    fs.mkdirSync(path.join(root, "d"), { mode: 0o777 });
    fs.writeFileSync(path.join(root, "d", "tool"), "#!/bin/sh\n", { mode: 0o4777 });
    fs.chmodSync(path.join(root, "d", "tool"), 0o4777);
    fs.writeFileSync(path.join(root, "d", "data"), "x", { mode: 0o666 });
    fs.linkSync(path.join(root, "d", "data"), path.join(root, "linked"));
    fs.mkdirSync(path.join(root, "sealed"));
    fs.renameSync(path.join(root, "d"), path.join(root, "sealed", "d"));
    fs.renameSync(path.join(root, "linked"), path.join(root, "sealed", "linked"));
    seal(path.join(root, "sealed"));
    const mode = (p: string) => fs.statSync(path.join(root, "sealed", p)).mode & 0o7777;
    expect(mode("d")).toBe(0o755);
    expect(mode("d/tool")).toBe(0o755);
    expect(mode("d/data")).toBe(0o644);
    // A hard link became a file of its own.
    expect(fs.statSync(path.join(root, "sealed", "linked")).nlink).toBe(1);
  });
});
