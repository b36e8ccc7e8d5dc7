/**
 * First-start set-up, idempotent on every start: the admin account, the forms folder, the
 * example vault-demo form's credential and the local runner. Several app nodes may start at
 * the same moment on one PostgreSQL database: startUp runs all of it under the start-up lock,
 * and each write also tolerates finding its row already there.
 */
import { backfillRunKeys } from "./jobs/run-keys";
import { hkdfSync, randomBytes } from "node:crypto";
import { countUsers, createUserUnlessTaken, findUserByUsername, setPassword, type PublicUser } from "./data/users";
import { upsertForm } from "./data/forms";
import { findFormOrigins } from "./data/sources";
import { providerFromUrl } from "./data/database-url";
import { countLiveInstances, findLocalRunner, provisionLocalRunner, reserveLocalInstance } from "./data/runners";
import { withStartupLock } from "./data/startup-lock";
import { credentialKey } from "./security/encryption-secret";
import { sha256Hex } from "./security/tokens";
import { sealLegacyPasswordValues } from "./jobs/job-secrets";
import { listForms } from "./forms/catalog";
import { loadFormsFrom } from "./forms/import";
import { DomainError } from "./errors";
import { audited } from "./audit/record";
import { createCredentialSchema } from "./credentials/kinds";
import { createCredential, credentialExists } from "./credentials/store";
import { loadAppConfig, type AppConfig } from "./config";
import { loggerFor } from "./logging/logger";

const log = loggerFor({ component: "forms" });

/**
 * Creates the `admin` account on the first start (password from PLAYFORM_ADMIN_PASSWORD, else
 * generated and printed once). Returns how to sign in as admin, for the start's last lines.
 */
export async function ensureAdmin(config: AppConfig, log: (line: string) => void): Promise<string> {
  const fromVariable = "sign in as admin with the password in PLAYFORM_ADMIN_PASSWORD";
  const existing = await findUserByUsername("admin");
  if (existing) {
    // The variable is the source of truth when set: changing it and restarting resets the password.
    if (config.PLAYFORM_ADMIN_PASSWORD) await setPassword("admin", config.PLAYFORM_ADMIN_PASSWORD);
    return config.PLAYFORM_ADMIN_PASSWORD
      ? fromVariable
      : "sign in as admin with the password printed at the first start (lost? set PLAYFORM_ADMIN_PASSWORD and restart to reset it)";
  }
  const password = config.PLAYFORM_ADMIN_PASSWORD ?? randomBytes(12).toString("base64url");
  if (!(await createUserUnlessTaken("admin", password, "admin"))) {
    // Created by another node in the meantime (only possible outside the start-up lock).
    if (config.PLAYFORM_ADMIN_PASSWORD) await setPassword("admin", config.PLAYFORM_ADMIN_PASSWORD);
    return config.PLAYFORM_ADMIN_PASSWORD ? fromVariable : "sign in as admin with the password the node that created it printed";
  }
  if (config.PLAYFORM_ADMIN_PASSWORD) log("created the admin account 'admin' (password from PLAYFORM_ADMIN_PASSWORD)");
  else {
    log("created the admin account 'admin' with this generated password (shown once, note it now):");
    log(`    ${password}`);
  }
  if ((await countUsers()) === 0) throw new Error("admin account was not created");
  return config.PLAYFORM_ADMIN_PASSWORD ? fromVariable : "sign in as admin with the generated password printed above";
}

/**
 * (Re-)imports every form of the forms folder: at start, and when an admin asks for it after
 * editing the folder. A bad form is reported and skipped; the good ones are imported.
 */
export async function importForms(config: AppConfig, log: (line: string) => void): Promise<{ imported: string[]; errors: string[] }> {
  // Hosts fields' choices are not read here: a runner lists the inventory when a page needs them (server/forms/host-choices.ts).
  const loaded = loadFormsFrom(config.PLAYFORM_FORMS_DIR);
  const { errors } = loaded;
  // A form of a Git source (server/sources) is not replaced by a folder's form of the same name.
  const origins = await findFormOrigins(loaded.forms.map((f) => f.definition.name));
  const forms = loaded.forms.filter((form) => {
    const source = origins.get(form.definition.name);
    if (source) errors.push(`form "${form.definition.name}" not imported: a form of that name exists already, from source "${source}"`);
    return !source;
  });
  for (const error of errors) log(`form not imported: ${error}`);
  for (const form of forms) await upsertForm(form.definition, form.sourceDir);
  log(`imported ${forms.length} form(s) from ${config.PLAYFORM_FORMS_DIR}`);
  return { imported: forms.map((f) => f.definition.name).sort(), errors };
}

/**
 * An admin's re-import of the forms folder (PLAYFORM_FORMS_DIR) after an edit, without a
 * restart: which forms were imported and why others were not.
 */
export async function reimportForms(admin: PublicUser): Promise<{ folder: string; imported: string[]; errors: string[] }> {
  const config = loadAppConfig();
  const audit = { actor: admin.username, action: "forms.import", target: "forms", details: { folder: config.PLAYFORM_FORMS_DIR } } as const;
  const result = await audited({ ...audit, detailsOf: (r) => ({ imported: r.imported, errors: r.errors.length }) }, () =>
    importForms(config, (line) => log().info(`${line} (asked by ${admin.username})`)),
  );
  await ensureDemoVaultCredential((line) => log().info(line));
  return { folder: config.PLAYFORM_FORMS_DIR, ...result };
}

export const DEMO_VAULT_CREDENTIAL = "demo-vault";

/**
 * The vault credential of the example form vault-demo (server/forms/examples/vault-demo), whose
 * password `playform-demo` is published with the example: it protects nothing but the demo
 * string. Created only when a stored form names it and it does not exist yet, so an instance
 * that never imported the examples gets no credential it did not ask for, and a replaced or
 * re-described demo credential is left as the admin made it.
 */
export async function ensureDemoVaultCredential(log: (line: string) => void): Promise<void> {
  if (await credentialExists(DEMO_VAULT_CREDENTIAL)) return;
  const forms = await listForms();
  if (!forms.some((form) => form.definition.credentials.includes(DEMO_VAULT_CREDENTIAL))) return;
  try {
    await createCredential(
      createCredentialSchema.parse({
        name: DEMO_VAULT_CREDENTIAL,
        kind: "vault",
        password: "playform-demo",
        description: "Demo only: the published password of the vault-demo example form. Never use it for a real vault.",
      }),
    );
  } catch (error) {
    // Another app node starting at the same time created it first.
    if (error instanceof DomainError && error.code === "conflict") return;
    throw error;
  }
  log(`created the credential "${DEMO_VAULT_CREDENTIAL}" for the vault-demo example form (demo password, see its description)`);
}

/** How long a local instance id stays taken after its last sign of life (or its reservation). */
const LOCAL_INSTANCE_RESERVATION_SECONDS = 120;

/** What a start provisioned for this node's local RTE. */
export interface LocalRunnerGrant {
  token: string;
  /** The token kept from the previous start is still the runner's: an RTE left from then can reconnect. */
  tokenReused: boolean;
  instanceId: string;
}

/**
 * Everything an app node writes at start, under the start-up lock (one node at a time on
 * PostgreSQL). Returns how to sign in as admin (ensureAdmin), and the local RTE's token and
 * instance id when the node starts one.
 */
export async function startUp(
  config: AppConfig,
  log: (line: string) => void,
  keptLocalToken: string | null = null,
): Promise<{ signIn: string; localRunner: LocalRunnerGrant | null }> {
  return withStartupLock(config.DATABASE_URL, async () => {
    const signIn = await ensureAdmin(config, log);
    return { signIn, localRunner: await provision(config, log, keptLocalToken) };
  });
}

/** The rest of a start, after the admin account: forms, the demo credential, old jobs' values, the local runner. */
async function provision(config: AppConfig, log: (line: string) => void, keptLocalToken: string | null): Promise<LocalRunnerGrant | null> {
  await importForms(config, log);
  await ensureDemoVaultCredential(log);
  const sealed = await sealLegacyPasswordValues();
  if (sealed > 0) log(`removed plain password values from ${sealed} job(s) launched before they were kept encrypted`);
  const keyed = await backfillRunKeys();
  if (keyed > 0) log(`found what ${keyed} earlier run(s) are comparable with (their playbook, tags, limit and check mode)`);
  if (!config.PLAYFORM_LOCAL_RTE) return null;
  const name = config.PLAYFORM_LOCAL_RTE_NAME;
  const singleNode = providerFromUrl(config.DATABASE_URL) === "sqlite";
  // Long enough for a reservation to outlive the rest of a slow start (Next.js prepares
  // before the local RTE starts); a crashed node's id is free again after it.
  const aliveSince = new Date(Date.now() - Math.max(config.RTE_HEARTBEAT_TIMEOUT_SECONDS, LOCAL_INSTANCE_RESERVATION_SECONDS) * 1000);
  const { token, seed } = await localRunnerToken(name, singleNode, aliveSince, keptLocalToken);
  const runner = await provisionLocalRunner(name, config.PLAYFORM_LOCAL_RTE_CAPACITY, token, seed);
  // One app node on SQLite: its local RTE is always local-0, also after a crash.
  const instanceId = singleNode
    ? "local-0"
    : await reserveLocalInstance(runner.id, config.PLAYFORM_NODE_ID, config.PLAYFORM_LOCAL_RTE_CAPACITY, aliveSince);
  return { token, tokenReused: token === keptLocalToken, instanceId };
}

/**
 * The local runner's token: HKDF-SHA256 of the ENCRYPTION_SECRET key with a random seed stored on
 * the runner (not secret by itself), so every app node sharing the database can compute it.
 * A start keeps the current token when this node's own local RTE may still hold it (`kept`, the
 * token the previous start left in the RTE's state folder: an RTE that outlived a kill -9 of the
 * app reconnects with it), or when another node's local RTE is live with it (replacing it would
 * lock that RTE out). Otherwise it takes a fresh seed, hence a fresh token. A token an admin
 * rotated or revoked on the Runners page no longer matches and is never brought back.
 */
async function localRunnerToken(
  name: string,
  singleNode: boolean,
  aliveSince: Date,
  kept: string | null,
): Promise<{ token: string; seed: string }> {
  const derive = (seed: string) => {
    const info = Buffer.from(`playform:local-runner-token:v1:${name}:${seed}`, "utf8");
    return `pfr_${Buffer.from(hkdfSync("sha256", credentialKey(), Buffer.alloc(0), info, 32)).toString("base64url")}`;
  };
  const runner = await findLocalRunner(name);
  const current = runner?.status === "approved" && runner.tokenSeed ? derive(runner.tokenSeed) : null;
  const stillValid = current !== null && sha256Hex(current) === runner?.tokenHash;
  if (stillValid && kept === current) return { token: current, seed: runner!.tokenSeed! };
  if (!singleNode && stillValid && (await countLiveInstances(runner!.id, aliveSince)) > 0) {
    return { token: current, seed: runner!.tokenSeed! };
  }
  const seed = randomBytes(16).toString("base64url");
  return { token: derive(seed), seed };
}
