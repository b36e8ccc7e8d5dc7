/**
 * The app <-> runtime environment (RTE) contract: every socket.io message of the `/rte`
 * namespace, as zod schemas. Both sides validate what they receive with these, because
 * socket.io's TypeScript types describe, but do not check, what arrives over the wire.
 *
 * Versioned by CONTRACT_VERSION: an RTE speaking another major version is refused at the
 * handshake with a clear reason instead of failing on the first job.
 */
import { z } from "zod";

export const CONTRACT_VERSION = 1;
/**
 * The version of a preview's `job:dispatch` (`preview: true`); every other message, and every
 * other dispatch, stays v1. A preview must never run the playbook for real: an RTE built before
 * previews would drop the unknown `preview` field and run it, so a preview is sent as v2, which
 * such an RTE refuses (claim answer `version`, the job fails saying so) instead of running it.
 */
export const PREVIEW_CONTRACT_VERSION = 2;
/** The contract versions an RTE of this build speaks (it refuses a job of any other, naming these). */
export const SUPPORTED_CONTRACT_VERSIONS: readonly number[] = [CONTRACT_VERSION, PREVIEW_CONTRACT_VERSION];
export const RTE_NAMESPACE = "/rte";
/** Inbound mode: the socket.io path an RTE listens on (namespace RTE_NAMESPACE, as outbound). */
export const INBOUND_SOCKET_PATH = "/rte/v1/socket";

/**
 * Optional behaviours an RTE announces in its handshake (`features`). Additions within contract
 * v1: an app that does not know a feature ignores it, an RTE that does not announce one gets
 * the old behaviour.
 */
export const RteFeatures = {
  /** Takes its heartbeat interval from the app's `rte:config` instead of a fixed 15 s. */
  heartbeatInterval: "heartbeat-interval",
  /** Answers `inventory:list`: reads a form's inventory for its hosts fields. */
  inventoryList: "inventory-list",
  /**
   * Sends its environments report in `rte:environments` once its probe ends (it connects
   * without waiting for it), and runs each job in the environment its dispatch names. An RTE
   * that does not announce this runs every job with its one ansible: it offers only `default`.
   */
  environments: "environments",
} as const;

/**
 * One Ansible environment a runner offers (RTE_ENVIRONMENTS, docs/rte.md "Environments"), as the
 * RTE found it at start: versions and collections, or why it is broken (`error`; then what could
 * be found, if anything, is still given).
 */
export const environmentReportSchema = z.object({
  name: z.string().min(1).max(32),
  description: z.string().max(500),
  /** ansible-core's version (ansible-base or ansible for 2.10 and older); null when unknown. */
  ansibleCore: z.string().max(100).nullable(),
  python: z.string().max(100).nullable(),
  collections: z.array(z.object({ name: z.string().max(200), version: z.string().max(100) })).max(5000),
  error: z.string().max(2000).nullable(),
});
export type EnvironmentReport = z.infer<typeof environmentReportSchema>;

/** The environments a job may name (form.yaml `environment:`, RTE_ENVIRONMENTS `name:`). */
export const ENVIRONMENT_NAME = /^[a-z0-9][a-z0-9._-]{0,31}$/;
/** The environment of a job whose form names none, and the one environment of a runner without RTE_ENVIRONMENTS. */
export const DEFAULT_ENVIRONMENT = "default";

/**
 * RTE -> app `rte:environments`, from RTEs that announce RteFeatures.environments: its
 * environments as its probe found them, sent on every connection once the probe has ended
 * (the first connection does not wait for it). Until it arrives the app dispatches the
 * instance no job: it does not know yet what the instance can run.
 */
export const rteEnvironmentsSchema = z.object({
  v: z.literal(CONTRACT_VERSION),
  environments: z.array(environmentReportSchema).max(20),
});
export type RteEnvironments = z.infer<typeof rteEnvironmentsSchema>;

/** Sent by the RTE in the socket.io handshake `auth` field. */
export const rteHandshakeSchema = z.object({
  v: z.number().int(),
  token: z.string().min(1),
  instanceId: z.string().min(1).max(200),
  version: z.string().max(100),
  capacity: z.number().int().min(1).max(1000),
  /** The runner this RTE is configured as (RTE_RUNNER_NAME, when set): its token must be that runner's. */
  runner: z.string().min(1).max(63).optional(),
  features: z.array(z.string().max(100)).max(50).optional(),
  /**
   * Deprecated: the environments report of the build before `rte:environments`, which waited
   * for its probe before it connected. Still accepted and shown, but such an RTE runs every job
   * with its one ansible, so it is dispatched only jobs of `default` (docs/rte.md).
   */
  environments: z.array(environmentReportSchema).max(20).optional(),
});
export type RteHandshake = z.infer<typeof rteHandshakeSchema>;

/**
 * Inbound mode, app -> RTE, the socket.io handshake `auth`: the contract version, the runner the
 * app means, and its proof that it knows the runner's token hash (security/inbound-proof.ts).
 */
export const inboundAuthSchema = z.object({
  v: z.number().int(),
  runner: z.string().min(1).max(63),
  ts: z.number(),
  nonce: z.string().min(1).max(100),
  proof: z.string().max(200),
});
export type InboundAuth = z.infer<typeof inboundAuthSchema>;

/** Inbound mode, the app's answer to `rte:hello`: the link is set up (or refused, with why). */
export const helloAnswerSchema = z.object({ ok: z.boolean(), reason: z.string().optional() });
export type HelloAnswer = z.infer<typeof helloAnswerSchema>;

/** A file the job needs, identified by its content hash (RTE_FILES=transfer). */
export const manifestEntrySchema = z.object({
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
});
export type ManifestEntry = z.infer<typeof manifestEntrySchema>;

export const jobOptionsSchema = z.object({
  tags: z.array(z.string()).default([]),
  skipTags: z.array(z.string()).default([]),
  limit: z.string().nullable().default(null),
  check: z.boolean().default(false),
  diff: z.boolean().default(false),
  verbosity: z.number().int().min(0).max(5).default(0),
  keepExtravars: z.boolean().default(false),
  /**
   * false: the playbook gets no network but its own loopback (form.yaml `sandbox: {network:
   * false}`, bwrap --unshare-net); an RTE without bubblewrap fails such a job instead of running
   * it with the network. Absent: the network, as always (only `false` is ever sent). An RTE older
   * than this option drops it and runs the playbook with the network.
   */
  network: z.literal(false).optional(),
});
export type JobOptions = z.infer<typeof jobOptionsSchema>;

/** app -> RTE `job:dispatch` (acknowledged with a ClaimAnswer). */
export const jobDispatchSchema = z
  .object({
    /** CONTRACT_VERSION, or PREVIEW_CONTRACT_VERSION for a preview (and only for one). */
    v: z.union([z.literal(CONTRACT_VERSION), z.literal(PREVIEW_CONTRACT_VERSION)]),
    jobId: z.number().int().positive(),
    playbook: z.string().min(1),
    inventories: z.array(z.string()),
    manifest: z.array(manifestEntrySchema),
    /** Form values as extravars: written to extravars_<id>.json and passed with -e @file. */
    extravars: z.record(z.string(), z.unknown()),
    options: jobOptionsSchema,
    /** AES-256-GCM sealed credentials bundle (see security/seal.ts), base64. */
    sealed: z.string(),
    /** The form's folder as the app sees it: read directly by RTEs with RTE_FILES=local. */
    sourceDir: z.string().optional(),
    /**
     * A preview: `ansible-playbook --list-tasks --list-tags` with the same inventories,
     * extravars and options instead of a run. Only in a v2 dispatch (PREVIEW_CONTRACT_VERSION).
     */
    preview: z.boolean().optional(),
    /**
     * File fields: extravar name → the file's path relative to the job folder, one of the
     * manifest's (`{keyfile: ".playform_uploads/keyfile/id.pem"}`). The RTE sets the extravar to
     * the absolute path in the job folder. Optional: an older app sends none, an older RTE
     * ignores it (the playbook then gets the upload id).
     */
    fileVars: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), z.string().min(1)).optional(),
    /**
     * The environment to run it in (form.yaml `environment:`); absent: `default`. Sent only to
     * RTEs that announce RteFeatures.environments and report it without error: an older RTE
     * would drop the field and run its one ansible.
     */
    environment: z.string().regex(ENVIRONMENT_NAME).optional(),
  })
  .refine((job) => (job.v === PREVIEW_CONTRACT_VERSION) === (job.preview === true), {
    message: `a preview is dispatched as contract v${PREVIEW_CONTRACT_VERSION}, and only a preview`,
  });
export type JobDispatch = z.infer<typeof jobDispatchSchema>;

export const claimAnswerSchema = z.discriminatedUnion("claimed", [
  z.object({ claimed: z.literal(true) }),
  z.object({
    claimed: z.literal(false),
    /** `environment`: it has no environment of the dispatch's name (RTE_ENVIRONMENTS changed). */
    reason: z.enum(["full", "stopping", "secrets", "version", "files", "duplicate", "environment"]),
    message: z.string(),
  }),
]);
export type ClaimAnswer = z.infer<typeof claimAnswerSchema>;

/** What the sealed bundle holds once opened by the RTE. */
export const jobSecretsSchema = z.object({
  /** Extravars that must never be in the visible extravars file (ansible login etc.). */
  hiddenExtravars: z.record(z.string(), z.unknown()).default({}),
  /** Sent to ansible-playbook on stdin, read by the RTE's vault password script. */
  vaultPassword: z.string().nullable().default(null),
  /**
   * The ansible login of an ssh credential. The RTE writes the key to a 0600 file in the job
   * folder (only the RTE knows that path) and adds `ansible_user` and
   * `ansible_ssh_private_key_file` to the hidden extravars file; the file goes with the folder.
   */
  sshKey: z
    .object({ username: z.string().min(1), privateKey: z.string().min(1) })
    .nullable()
    .default(null),
  /** Every secret value of the job, masked in output before it is spooled. */
  maskValues: z.array(z.string()).default([]),
});
export type JobSecrets = z.infer<typeof jobSecretsSchema>;

/** app -> RTE `job:cancel`. */
export const jobCancelSchema = z.object({ v: z.literal(CONTRACT_VERSION), jobId: z.number().int().positive() });

/**
 * RTE -> app `files:get` (acknowledged with FilesAnswer): the files of a job (`jobId`) or of an
 * inventory listing the app asked for (`listId`, see inventoryListSchema), exactly one of them.
 */
export const filesRequestSchema = z
  .object({
    v: z.literal(CONTRACT_VERSION),
    jobId: z.number().int().positive().optional(),
    listId: z.string().min(1).max(100).optional(),
    hashes: z.array(z.string().regex(/^[0-9a-f]{64}$/)).max(1000),
  })
  .refine((request) => (request.jobId === undefined) !== (request.listId === undefined), {
    message: "a files request names a job or a listing",
  });

/**
 * app -> RTE `inventory:list` (acknowledged with InventoryAnswer), to RTEs that announce
 * RteFeatures.inventoryList: run `ansible-inventory -i INVENTORY --list` in a folder of the
 * form's files (the manifest, fetched with `files:get` and this `listId` like a job's) and
 * answer the hosts and groups it names. The app never runs ansible-inventory itself: an
 * inventory script or plugin is code of the form, and runs where playbooks run.
 */
export const inventoryListSchema = z.object({
  v: z.literal(CONTRACT_VERSION),
  listId: z.string().min(1).max(100),
  /** The inventory's path in the form's folder (one of the manifest's). */
  inventory: z.string().min(1).max(500),
  manifest: z.array(manifestEntrySchema).max(10_000),
  /** The form's folder as the app sees it: read directly by RTEs with RTE_FILES=local. */
  sourceDir: z.string().optional(),
  /** The form's environment (form.yaml `environment:`), whose ansible-inventory lists it; absent: `default`. */
  environment: z.string().regex(ENVIRONMENT_NAME).optional(),
  /**
   * The form's playbook (one of the manifest's): the requirements.yml beside it are the ones its
   * jobs install, and the listing uses them where installed (an inventory plugin of a collection).
   * Absent (an older app): the listing uses none.
   */
  playbook: z.string().min(1).max(500).optional(),
});
export type InventoryList = z.infer<typeof inventoryListSchema>;

export const inventoryAnswerSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), hosts: z.array(z.string()).max(100_000), groups: z.array(z.string()).max(100_000) }),
  z.object({ ok: z.literal(false), error: z.string().max(2000) }),
]);
export type InventoryAnswer = z.infer<typeof inventoryAnswerSchema>;
export const filesAnswerSchema = z.object({
  files: z.array(z.object({ sha256: z.string(), contentBase64: z.string() })),
  error: z.string().optional(),
});
export type FilesAnswer = z.infer<typeof filesAnswerSchema>;

export const finalStatusSchema = z.enum(["success", "failed", "aborted"]);
export type FinalStatus = z.infer<typeof finalStatusSchema>;

/** One numbered item of a job's stream. Sequence numbers start at 1 and have no gaps. */
export const jobItemSchema = z.discriminatedUnion("kind", [
  z.object({ seq: z.number().int().positive(), ts: z.number(), kind: z.literal("start"), pid: z.number().int().optional() }),
  z.object({
    seq: z.number().int().positive(),
    ts: z.number(),
    kind: z.literal("output"),
    stream: z.enum(["stdout", "stderr"]),
    text: z.string(),
  }),
  z.object({ seq: z.number().int().positive(), ts: z.number(), kind: z.literal("events"), events: z.array(z.unknown()) }),
  /** The RTE's own log lines about the job (file transfer, warnings, buffer limits). */
  z.object({ seq: z.number().int().positive(), ts: z.number(), kind: z.literal("log"), text: z.string() }),
  z.object({
    seq: z.number().int().positive(),
    ts: z.number(),
    kind: z.literal("end"),
    status: finalStatusSchema,
    exitCode: z.number().int().nullable(),
    reason: z.string().nullable(),
    /**
     * The RTE stopped storing a stream at PROCESS_MAX_BUFFER bytes: the job's output is partial.
     * Optional (an older RTE does not send it, an older app ignores it).
     */
    outputTruncated: z.boolean().optional(),
    /**
     * Why the RTE cancelled the playbook when nobody asked for it: `drain`, it was stopping and
     * RTE_DRAIN_SECONDS ran out. Absent for an abort on request. Optional like outputTruncated.
     */
    cancelledBy: z.enum(["request", "drain"]).optional(),
  }),
]);
export type JobItem = z.infer<typeof jobItemSchema>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An item as the RTE produces it, before the spool gives it its sequence number. */
export type UnnumberedItem = DistributiveOmit<JobItem, "seq">;

/** RTE -> app `job:items` (acknowledged with ItemsAck). */
export const jobItemsSchema = z.object({
  v: z.literal(CONTRACT_VERSION),
  jobId: z.number().int().positive(),
  items: z.array(jobItemSchema).min(1).max(10_000),
});
export type JobItems = z.infer<typeof jobItemsSchema>;

/** The app stored (or had already stored) every listed sequence number. */
export const itemsAckSchema = z.object({
  acked: z.array(z.number().int()),
  /** The job is unknown or not this runner's: the RTE drops its spool for it. */
  drop: z.boolean().optional(),
});
export type ItemsAck = z.infer<typeof itemsAckSchema>;

/** RTE -> app `rte:state`, on every (re)connect and as the heartbeat. */
export const rteStateSchema = z.object({
  v: z.literal(CONTRACT_VERSION),
  running: z.array(z.number().int()),
  /** Jobs that have unacknowledged items in the spool. */
  spooled: z.array(z.number().int()),
  capacity: z.number().int(),
  draining: z.boolean(),
});
export type RteState = z.infer<typeof rteStateSchema>;

/** The heartbeat interval of an RTE that does not announce RteFeatures.heartbeatInterval. */
export const LEGACY_HEARTBEAT_SECONDS = 15;

/**
 * app -> RTE `rte:config`, right after the connection, to RTEs that announced
 * RteFeatures.heartbeatInterval: send `rte:state` every `heartbeatSeconds` (may be fractional).
 */
export const rteConfigSchema = z.object({
  v: z.literal(CONTRACT_VERSION),
  heartbeatSeconds: z.number().positive().max(3600),
});
export type RteConfig = z.infer<typeof rteConfigSchema>;

/** RTE -> app `rte:leaving`: drained, about to exit. */
export const rteLeavingSchema = z.object({ v: z.literal(CONTRACT_VERSION), reason: z.string() });

export const RteEvents = {
  dispatch: "job:dispatch",
  cancel: "job:cancel",
  files: "files:get",
  /** app -> RTE: list a form's inventory (InventoryList), answered with an InventoryAnswer. */
  inventory: "inventory:list",
  items: "job:items",
  state: "rte:state",
  leaving: "rte:leaving",
  /** app -> RTE: the app closes this link (runner revoked, token rotated); `{v, reason}`. */
  closing: "rte:closing",
  /** app -> RTE: settings for this link (RteConfig), sent on connection. */
  config: "rte:config",
  /**
   * Inbound mode, RTE -> app, first message once the app's proof was accepted: the RteHandshake
   * an outbound RTE sends in its `auth`; acknowledged with a HelloAnswer once the app listens.
   */
  hello: "rte:hello",
  /** RTE -> app: its environments report (RteEnvironments), once its probe has ended. */
  environments: "rte:environments",
} as const;
