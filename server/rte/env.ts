/**
 * The RTE's configuration, parsed once at boot. A bad value stops the process with a message
 * naming the variable, instead of failing later in a job.
 */
import { createHash } from "node:crypto";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { parseByteSize } from "./disk-usage";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** An http(s) URL, or unset: empty (a build arg or a compose variable left blank) counts as unset. */
const optionalHttpUrl = () =>
  z
    .string()
    .transform((s) => s.trim() || undefined)
    .pipe(
      z
        .string()
        .refine((url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol), "must be an http:// or https:// URL, or unset")
        .optional(),
    )
    .optional();

const rteEnvSchema = z.object({
  APP_URL: z.string().url().default("http://127.0.0.1:3000"),
  // Kubernetes Secrets mounted through secretKeyRef often carry a trailing newline; a token
  // that differs by "\n" would be refused with a mysterious 401, so it is trimmed here.
  // Absent: the RTE asks to join (RTE_RUNNER_NAME) and waits for an admin's approval.
  RTE_TOKEN: z
    .string()
    .transform((t) => t.trim())
    .pipe(z.string().min(1, "is empty"))
    .optional(),
  RTE_RUNNER_NAME: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, "letters, digits, . _ - (max 63)")
    .default(hostname()),
  /**
   * Where a joined RTE keeps the token it was issued (and its pending join request). Unset:
   * data/rte/<runner name>/state (see runnerDefaultDir).
   */
  RTE_STATE_PATH: z.string().min(1).optional(),
  /**
   * The URL the app connects to in inbound mode (https://host:port, or http:// when an admin
   * allows that runner without TLS); informational in outbound mode.
   */
  RTE_ADDRESS: z.string().min(1).optional(),
  /** outbound: the RTE connects to APP_URL; inbound: it listens on PORT and the app connects to RTE_ADDRESS. */
  RTE_MODE: z.enum(["outbound", "inbound"]).default("outbound"),
  /** Inbound over https: the certificate and key (PEM files); unset, a self-signed pair is generated once in RTE_STATE_PATH. */
  RTE_TLS_CERT: z.string().min(1).optional(),
  RTE_TLS_KEY: z.string().min(1).optional(),
  /** transfer: files come from the app by content hash; local: read from a volume shared with the app. */
  RTE_FILES: z.enum(["transfer", "local"]).default("transfer"),
  RTE_INSTANCE_ID: z.string().min(1).default(hostname()),
  RTE_MAX_JOBS: positiveInt(4),
  /** Unset: data/rte/<runner name>/spool and …/work (see runnerDefaultDir). */
  RTE_SPOOL_PATH: z.string().min(1).optional(),
  RTE_WORK_DIR: z.string().min(1).optional(),
  /**
   * Where running jobs' folders are laid out (the folder the playbook runs in). Every folder
   * above it must be open to the playbook user, so by default it is not in the work dir (which
   * may sit in a private data folder) but in the temp folder, one per work dir.
   */
  RTE_JOBS_DIR: z.string().min(1).optional(),
  /**
   * The user playbooks run as. Unset: `playform-run` when the RTE runs as root (created when
   * missing), the RTE's own user otherwise. Empty: the RTE's own user (see playbook-user.ts).
   */
  RTE_PLAYBOOK_USER: z
    .string()
    .regex(/^$|^[a-z_][a-z0-9_-]*[$]?$/i, "a user name (letters, digits, _ -)")
    .optional(),
  /**
   * How much lower than the RTE's own the playbooks' CPU priority is (their niceness, added to
   * the RTE's): a runner whose playbooks take every core still reads their output, beats and
   * answers the app in time. 0: the RTE's own priority.
   */
  /**
   * The sandbox playbooks run in (server/rte/sandbox.ts): `bwrap`, bubblewrap's namespaces
   * (nothing of a playbook outlives its RTE, even one killed with SIGKILL; its own /proc, the
   * system read-only, the runner's folders hidden) when it works here, else a warning at start
   * and playbooks run without it; `none`: never (playbooks that must mount filesystems or start
   * daemons on the runner itself). Unset: RTE_PLAYBOOK_SANDBOX, else `bwrap`.
   */
  RTE_SANDBOX: z.enum(["bwrap", "none"], { error: "must be bwrap or none" }).optional(),
  /**
   * The /proc a sandboxed playbook sees (sandbox.ts): `private`, its pid namespace's, or where
   * the kernel refuses to mount one (some containers), the runner's, read-only, said loudly at
   * start; `runner`: the runner's without trying (the playbook then sees every process of the
   * runner and their command lines).
   */
  RTE_SANDBOX_PROC: z.enum(["private", "runner"], { error: "must be private or runner" }).default("private"),
  /** Deprecated spelling of RTE_SANDBOX: `auto` is `bwrap`, `off` is `none`. */
  RTE_PLAYBOOK_SANDBOX: z.enum(["auto", "off"], { error: "must be auto or off (deprecated: use RTE_SANDBOX=bwrap|none)" }).optional(),
  /**
   * Under the sandbox, whether a playbook's /tmp, /var/tmp, /dev/shm and /run/lock are a folder
   * of its job (removed with it, counted in its disk use): see sandbox.ts. `off`: the runner's.
   */
  RTE_PLAYBOOK_PRIVATE_TMP: z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  /**
   * The most disk one job may take: its folder (with its private /tmp) and the output it
   * printed. Past it the job fails, saying so. A size: 10GiB, 500MiB, 20GB (see disk-usage.ts).
   */
  RTE_JOB_DISK_LIMIT: z
    .string()
    .default("10GiB")
    .transform((text, ctx) => {
      const bytes = parseByteSize(text);
      if (bytes === null || bytes < 1024 * 1024) {
        ctx.addIssue({ code: "custom", message: `${JSON.stringify(text)} is not a size of at least 1 MiB (e.g. 10GiB, 500MiB, 20GB)` });
        return z.NEVER;
      }
      return bytes;
    }),
  /** How often a running job's disk use is measured against RTE_JOB_DISK_LIMIT. */
  RTE_JOB_DISK_CHECK_SECONDS: positiveInt(5),
  /**
   * Names of variables of the RTE's environment that playbooks (and inventory listings) get on
   * top of the allow list (playbookEnv in playbook-command.ts): comma or space separated. The
   * RTE's and the app's own variables are refused (see playbookEnvPassProblems).
   */
  RTE_PLAYBOOK_ENV_PASS: z
    .string()
    .default("")
    .transform((text) => text.split(/[\s,]+/).filter((name) => name !== ""))
    .superRefine((names, context) => {
      for (const problem of playbookEnvPassProblems(names)) context.addIssue({ code: "custom", message: problem });
    }),
  RTE_PLAYBOOK_NICE: z
    .string()
    .trim()
    .regex(/^(1?[0-9])$/, {
      error: (issue) => `${JSON.stringify(issue.input)} is not a whole number from 0 (the RTE's own CPU priority) to 19 (the lowest)`,
    })
    .default("10")
    .transform(Number),
  RTE_DRAIN_SECONDS: positiveInt(60),
  RTE_KILL_GRACE_SECONDS: positiveInt(10),
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  /**
   * When set, the health server's /metrics needs `Authorization: Bearer <this>` (as the app's
   * PLAYFORM_METRICS_TOKEN); unset or empty, it is open. Trimmed (a mounted Secret's newline).
   */
  RTE_METRICS_TOKEN: z
    .string()
    .transform((s) => s.trim() || undefined)
    .pipe(z.string().min(16, "must be at least 16 characters (e.g. openssl rand -base64 24), or unset").optional())
    .optional(),
  /**
   * Bytes of one output stream of one job the RTE sends (1 GiB): the spool and the database hold
   * it on disk, never in memory. Past it the rest of the stream is dropped and the job is marked
   * outputTruncated.
   */
  PROCESS_MAX_BUFFER: positiveInt(1024 * 1024 * 1024),
  ANSIBLE_PLAYBOOK: z.string().default("ansible-playbook"),
  /**
   * A YAML file of the Ansible environments this runner offers (environments.ts, docs/rte.md
   * "Environments"). Unset: one environment, `default`, the ansible-playbook above.
   */
  RTE_ENVIRONMENTS: z.string().optional(),
  /**
   * Where a job's requirements.yml and requirements.txt (its venv) are installed and kept, one folder per key (requirements-cache.ts).
   * The playbook user must be able to enter every folder above it. Unset: `.requirements` in the
   * jobs folder (RTE_JOBS_DIR), the one folder the playbook user is sure to reach.
   */
  RTE_REQUIREMENTS_DIR: z.string().min(1).optional(),
  /** The longest a job's requirements install may take (all its ansible-galaxy commands together). */
  RTE_REQUIREMENTS_TIMEOUT_SECONDS: positiveInt(600),
  /**
   * Installed requirements no job has used for longer are removed (requirements-evict.ts), at
   * start and every hour. Days, fractions allowed; 0: kept however long unused.
   */
  RTE_REQUIREMENTS_MAX_AGE_DAYS: z.coerce.number().nonnegative().default(30),
  /**
   * The most the installed requirements may take together: past it the least recently used are
   * removed (never one in use). A size (10GiB, 500MiB, 20GB); unset or empty: no size limit.
   */
  RTE_REQUIREMENTS_MAX_BYTES: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === "") return null;
      const bytes = parseByteSize(text);
      if (bytes === null || bytes < 1) {
        ctx.addIssue({ code: "custom", message: `${JSON.stringify(text)} is not a size (e.g. 10GiB, 500MiB, 20GB)` });
        return z.NEVER;
      }
      return bytes;
    }),
  /**
   * The most disk one requirements install may take while it runs (what it downloads and
   * builds, in its job's folder and /tmp, before the cache takes it over): past it the install
   * is stopped and its job fails (requirements-install.ts). A size (2GiB, 500MiB); 0: no cap.
   */
  RTE_REQUIREMENTS_INSTALL_MAX_BYTES: z
    .string()
    .default("2GiB")
    .transform((text, ctx) => {
      const bytes = parseByteSize(text);
      if (bytes === null) {
        ctx.addIssue({ code: "custom", message: `${JSON.stringify(text)} is not a size (e.g. 2GiB, 500MiB), or 0 for no cap` });
        return z.NEVER;
      }
      return bytes === 0 ? null : bytes;
    }),
  /**
   * The Galaxy server requirements are installed from (ansible-galaxy --server): an internal
   * Galaxy or mirror, for runners without internet. Unset or empty: ansible's own (galaxy.ansible.com,
   * or what the runner's ansible.cfg / ANSIBLE_GALAXY_SERVER_LIST say).
   */
  RTE_GALAXY_SERVER: optionalHttpUrl(),
  /**
   * The Python package index a job's requirements.txt is installed from (pip --index-url): an
   * internal index or mirror. Unset or empty: pip's own (PyPI, or the runner's pip.conf).
   */
  RTE_PIP_INDEX_URL: optionalHttpUrl(),
  /**
   * Where else pip looks for wheels and sdists (pip --find-links): an absolute folder of the
   * runner (the playbook user must be able to read it) or an http(s):// URL of a page of links.
   * A folder without RTE_PIP_INDEX_URL means no index at all (--no-index): a runner without
   * internet installs from the folder only.
   */
  RTE_PIP_FIND_LINKS: z
    .string()
    .transform((s) => s.trim() || undefined)
    .pipe(
      z
        .string()
        .refine(
          (value) => value.startsWith("/") || (URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)),
          "must be an absolute folder (/srv/wheels) or an http:// or https:// URL, or unset",
        )
        .optional(),
    )
    .optional(),
});

export type RteEnv = z.infer<typeof rteEnvSchema> & {
  spoolDir: string;
  workDir: string;
  cacheDir: string;
  stateDir: string;
  /** RTE_RUNNER_NAME when set explicitly: the app refuses a token of any other runner. */
  runnerName: string | null;
  jobsDir: string;
  requirementsDir: string;
  /** RTE_SANDBOX, or what the deprecated RTE_PLAYBOOK_SANDBOX says. */
  sandbox: "bwrap" | "none";
};

/**
 * The default RTE_SPOOL_PATH, RTE_WORK_DIR and RTE_STATE_PATH of a runner: data/rte/<name>/…,
 * one folder per runner name. So a second runner started on the machine that runs `npm start`
 * (README, "Runners": `RTE_RUNNER_NAME=datacenter-2 npm run rte` in the same folder) neither
 * meets the local RTE's lock on data/rte/spool nor reads the local runner's token from
 * data/rte/state: the app always names the local RTE's folders explicitly (server/local-rte.ts).
 */
export function runnerDefaultDir(runnerName: string, kind: "spool" | "work" | "state"): string {
  return path.join("data", "rte", runnerName, kind);
}

/** The default RTE_JOBS_DIR: in the temp folder, named after the work dir it belongs to. */
export function defaultJobsDir(workDir: string): string {
  const id = createHash("sha256").update(path.resolve(workDir)).digest("hex").slice(0, 12);
  return path.join(tmpdir(), `playform-jobs-${id}`);
}

/**
 * Why names of RTE_PLAYBOOK_ENV_PASS cannot be passed to playbooks: not a variable name, or a
 * variable of the RTE itself (its token, its settings) or of the app (DATABASE_URL,
 * ENCRYPTION_SECRET, PLAYFORM_*), which no playbook may read.
 */
export function playbookEnvPassProblems(names: readonly string[]): string[] {
  const own = new Set<string>([...RTE_OWN_VARIABLES, "DATABASE_URL", "ENCRYPTION_SECRET"]);
  const problems: string[] = [];
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) problems.push(`${JSON.stringify(name)} is not a variable name (letters, digits and _)`);
    else if (own.has(name) || name.startsWith("RTE_") || name.startsWith("PLAYFORM_"))
      problems.push(`${name} is the runner's or the app's own setting, never passed to a playbook`);
  }
  return problems;
}

/** Variables the RTE reads itself: never passed on to a playbook. */
export const RTE_OWN_VARIABLES = [...Object.keys(rteEnvSchema.shape).filter((k) => k !== "ANSIBLE_PLAYBOOK")];

export function loadRteEnv(env: Readonly<Record<string, string | undefined>> = process.env): RteEnv {
  const parsed = rteEnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n  ");
    throw new Error(`invalid RTE configuration:\n  ${problems}`);
  }
  const data = parsed.data;
  const name = data.RTE_RUNNER_NAME;
  const work = path.resolve(data.RTE_WORK_DIR ?? runnerDefaultDir(name, "work"));
  if (data.RTE_MODE === "inbound") {
    const problems: string[] = [];
    if (!data.RTE_ADDRESS)
      problems.push("RTE_ADDRESS: required with RTE_MODE=inbound (the URL the app connects to, e.g. https://runner-1.example:8000)");
    else if (!URL.canParse(data.RTE_ADDRESS) || !/^https?:$/.test(new URL(data.RTE_ADDRESS).protocol)) {
      problems.push("RTE_ADDRESS: must be an https:// (or http://) URL");
    }
    if (Boolean(data.RTE_TLS_CERT) !== Boolean(data.RTE_TLS_KEY)) problems.push("RTE_TLS_CERT, RTE_TLS_KEY: set both or neither");
    if (problems.length > 0) throw new Error(`invalid RTE configuration:\n  ${problems.join("\n  ")}`);
  }
  const legacySandbox = data.RTE_PLAYBOOK_SANDBOX === undefined ? undefined : data.RTE_PLAYBOOK_SANDBOX === "off" ? "none" : "bwrap";
  // Both set and saying different things: neither is taken silently.
  if (data.RTE_SANDBOX !== undefined && legacySandbox !== undefined && data.RTE_SANDBOX !== legacySandbox) {
    throw new Error(
      `invalid RTE configuration:\n  RTE_SANDBOX: ${data.RTE_SANDBOX} contradicts RTE_PLAYBOOK_SANDBOX=${data.RTE_PLAYBOOK_SANDBOX} ` +
        `(its deprecated spelling): unset RTE_PLAYBOOK_SANDBOX`,
    );
  }
  const jobsDir = path.resolve(data.RTE_JOBS_DIR ?? defaultJobsDir(work));
  return {
    ...parsed.data,
    spoolDir: path.resolve(data.RTE_SPOOL_PATH ?? runnerDefaultDir(name, "spool")),
    workDir: work,
    cacheDir: path.join(work, "cache"),
    stateDir: path.resolve(data.RTE_STATE_PATH ?? runnerDefaultDir(name, "state")),
    runnerName: env.RTE_RUNNER_NAME !== undefined ? parsed.data.RTE_RUNNER_NAME : null,
    jobsDir,
    requirementsDir: path.resolve(data.RTE_REQUIREMENTS_DIR ?? path.join(jobsDir, ".requirements")),
    sandbox: data.RTE_SANDBOX ?? legacySandbox ?? "bwrap",
  };
}
