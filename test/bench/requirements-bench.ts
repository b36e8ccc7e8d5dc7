/**
 * Requirements benchmark (issue 21, "Done when"): what a form's requirements.yml adds to a
 * job's launch on the runner, on the RTE's own code paths (requirements.ts, requirements-cache.ts,
 * requirements-install.ts), with real ansible-galaxy and only local sources:
 *
 * - first install: a collection built here (`ansible-galaxy collection init` + `build`) named as
 *   a tarball in requirements.yml, installed with GalaxyInstall into the cache (as this user,
 *   without the sandbox: the sandbox's own start is measured by the playbook's launch anyway);
 * - cached launch: reading the requirements file, computing the key (a named tarball counts by its
 *   hash in the job's manifest, as job-run.ts does: never read again) and finding the entry, for a
 *   small tarball and with a large one besides. Goal: under 50 ms.
 * - the same for a requirements.txt: a wheel built here from a tiny package (Debian's python3, pip
 *   and setuptools, no index), installed with PipInstall into a venv layered on the ansible on
 *   PATH (its Python found with ansible-playbook --version), then the cached launch (key + look-up).
 *
 *   npx tsx test/bench/requirements-bench.ts [ROUNDS] [LARGE_TARBALL_MEGABYTES]
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { playbookEnv } from "../../server/rte/playbook-command";
import { manifestDigest, readJobRequirements } from "../../server/rte/requirements";
import { RequirementsCache } from "../../server/rte/requirements-cache";
import { GalaxyInstall, PipInstall } from "../../server/rte/requirements-install";
import { readPipRequirements } from "../../server/rte/requirements-pip";

const ROUNDS = Number(process.argv[2] ?? 200);
const LARGE_MB = Number(process.argv[3] ?? 20);
const GOAL_MS = 50;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "requirements-bench-"));
const context = { environment: "default", ansible: "2.14.18", galaxyServer: null };

/** The job's manifest, as the app builds it (server/forms/manifest.ts): each file's sha256. */
function manifestOf(dir: string): { path: string; sha256: string }[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const full = path.join(entry.parentPath, entry.name);
      return { path: path.relative(dir, full), sha256: createHash("sha256").update(fs.readFileSync(full)).digest("hex") };
    });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

try {
  const source = path.join(scratch, "src");
  execFileSync("ansible-galaxy", ["collection", "init", "bench.reqs", "--init-path", source]);
  execFileSync("ansible-galaxy", ["collection", "build", path.join(source, "bench", "reqs"), "--output-path", path.join(scratch, "dist")]);
  const tarball = fs.readdirSync(path.join(scratch, "dist")).find((name) => name.endsWith(".tar.gz"))!;
  const job = path.join(scratch, "job");
  fs.mkdirSync(path.join(job, "vendor"), { recursive: true });
  fs.copyFileSync(path.join(scratch, "dist", tarball), path.join(job, "vendor", tarball));
  fs.writeFileSync(path.join(job, "requirements.yml"), `collections:\n  - name: vendor/${tarball}\n    type: file\n`);
  const cache = new RequirementsCache(path.join(scratch, "requirements"), 60_000);

  // First install.
  const requirements = readJobRequirements(job, ["requirements.yml"], context);
  const t0 = performance.now();
  const entry = await cache.obtain(requirements.key, {
    say: () => undefined,
    cancelled: () => false,
    install: async () => {
      const target = path.join(job, ".playform_requirements");
      await new GalaxyInstall({
        program: "ansible-galaxy",
        jobDir: job,
        target,
        files: requirements.files,
        galaxyServer: null,
        env: playbookEnv(process.env, { HOME: job, ANSIBLE_NOCOLOR: "1" }),
        user: null,
        sandboxed: false,
        privateTmp: null,
        timeoutMs: 120_000,
        say: () => undefined,
      }).install();
      return target;
    },
  });
  const firstMs = performance.now() - t0;
  if (!entry.installed) throw new Error("the first install did not install");
  console.log(
    `first install (one local collection tarball, ${fs.statSync(path.join(job, "vendor", tarball)).size} bytes): ${firstMs.toFixed(0)} ms`,
  );

  // Cached launches: key + look-up, as job-run does before the playbook starts.
  let manifest = manifestOf(job);
  const keyOf = () => readJobRequirements(job, ["requirements.yml"], context, (written) => manifestDigest(manifest, written));
  const cachedLaunch = () => {
    const started = performance.now();
    const found = keyOf();
    const hit = cache.lookUp(found.key);
    if (!hit) throw new Error("expected a cache hit");
    return performance.now() - started;
  };
  let worst = 0;
  for (const [label, extraBytes] of [
    ["small tarball", 0],
    [`plus a ${LARGE_MB} MB tarball`, LARGE_MB * 2 ** 20],
  ] as const) {
    if (extraBytes > 0) {
      fs.writeFileSync(path.join(job, "vendor", "large-1.0.0.tar.gz"), Buffer.alloc(extraBytes, 7));
      fs.appendFileSync(path.join(job, "requirements.yml"), "  - name: vendor/large-1.0.0.tar.gz\n    type: file\n");
      manifest = manifestOf(job);
      // Its entry, so the look-up hits (the content is not a collection: nothing is installed).
      const key = keyOf().key;
      await cache.obtain(key, {
        say: () => undefined,
        cancelled: () => false,
        install: async () => fs.mkdtempSync(path.join(job, "empty-")),
      });
    }
    cachedLaunch(); // warm-up
    const times = Array.from({ length: ROUNDS }, cachedLaunch);
    const p50 = percentile(times, 50);
    const p95 = percentile(times, 95);
    worst = Math.max(worst, p95);
    console.log(`cached launch, ${label}: p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms (${ROUNDS} rounds)`);
  }

  // requirements.txt: first install into a venv, then cached launches.
  const pkg = path.join(scratch, "pkg");
  fs.mkdirSync(path.join(pkg, "bench_pipdemo"), { recursive: true });
  fs.writeFileSync(
    path.join(pkg, "pyproject.toml"),
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "bench-pipdemo"\nversion = "1.0.0"\n',
  );
  fs.writeFileSync(path.join(pkg, "bench_pipdemo", "__init__.py"), "VALUE = 1\n");
  const wheels = path.join(scratch, "wheels");
  execFileSync("/usr/bin/python3", ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", wheels, pkg]);
  fs.writeFileSync(path.join(job, "requirements.txt"), "bench-pipdemo==1.0.0\n");
  manifest = manifestOf(job);
  const pipContext = { environment: "default", ansible: "2.14.18", python: "3.11.2", indexUrl: null, findLinks: wheels };
  const pipKeyOf = () => readPipRequirements(job, "requirements.txt", pipContext, (relative) => manifestDigest(manifest, relative));
  const p0 = performance.now();
  const venv = await cache.obtain(pipKeyOf().key, {
    say: () => undefined,
    cancelled: () => false,
    install: async () => {
      const target = path.join(job, ".playform_pip_requirements");
      const details = await new PipInstall({
        ansiblePlaybook: "ansible-playbook",
        file: "requirements.txt",
        target,
        settings: { indexUrl: null, findLinks: wheels },
        jobDir: job,
        env: playbookEnv(process.env, { HOME: job, ANSIBLE_NOCOLOR: "1" }),
        user: null,
        sandboxed: false,
        privateTmp: null,
        timeoutMs: 300_000,
        say: () => undefined,
      }).install();
      return { folder: target, details: { ...details } };
    },
  });
  const pipFirstMs = performance.now() - p0;
  if (!venv.installed) throw new Error("the first pip install did not install");
  console.log(`first install (requirements.txt, one local wheel, into a venv): ${pipFirstMs.toFixed(0)} ms`);
  const pipCachedLaunch = () => {
    const started = performance.now();
    if (!cache.lookUp(pipKeyOf().key)) throw new Error("expected a cache hit");
    return performance.now() - started;
  };
  pipCachedLaunch();
  const pipTimes = Array.from({ length: ROUNDS }, pipCachedLaunch);
  worst = Math.max(worst, percentile(pipTimes, 95));
  console.log(
    `cached launch, requirements.txt: p50 ${percentile(pipTimes, 50).toFixed(2)} ms, p95 ${percentile(pipTimes, 95).toFixed(2)} ms (${ROUNDS} rounds)`,
  );
  console.log(`goal: under ${GOAL_MS} ms: ${worst < GOAL_MS ? "met" : "NOT met"}`);
  if (worst >= GOAL_MS) process.exitCode = 1;
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
