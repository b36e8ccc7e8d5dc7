/**
 * First-start set-up, idempotent on every start: the admin account, the forms folder and the
 * example vault-demo form's credential.
 */
import { randomBytes } from "node:crypto";
import { countUsers, createUser, findUserByUsername, setPassword, type PublicUser } from "./data/users";
import { upsertForm } from "./data/forms";
import { listForms } from "./forms/catalog";
import { loadFormsFrom } from "./forms/import";
import { DomainError } from "./errors";
import { createCredentialSchema } from "./credentials/kinds";
import { createCredential, credentialExists } from "./credentials/store";
import { loadAppConfig, type AppConfig } from "./config";

export async function ensureAdmin(config: AppConfig, log: (line: string) => void): Promise<void> {
  const existing = await findUserByUsername("admin");
  if (existing) {
    // The variable is the source of truth when set: changing it and restarting resets the password.
    if (config.PLAYFORM_ADMIN_PASSWORD) await setPassword("admin", config.PLAYFORM_ADMIN_PASSWORD);
    return;
  }
  const password = config.PLAYFORM_ADMIN_PASSWORD ?? randomBytes(12).toString("base64url");
  await createUser("admin", password, "admin");
  if (config.PLAYFORM_ADMIN_PASSWORD) log("created the admin account 'admin' (password from PLAYFORM_ADMIN_PASSWORD)");
  else {
    log("created the admin account 'admin' with this generated password (shown once, note it now):");
    log(`    ${password}`);
  }
  if ((await countUsers()) === 0) throw new Error("admin account was not created");
}

/**
 * (Re-)imports every form of the forms folder: at start, and when an admin asks for it after
 * editing the folder. A bad form is reported and skipped; the good ones are imported.
 */
export async function importForms(config: AppConfig, log: (line: string) => void): Promise<{ imported: string[]; errors: string[] }> {
  const { forms, errors } = loadFormsFrom(config.PLAYFORM_FORMS_DIR);
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
  const result = await importForms(config, (line) => console.log(`[forms] ${line} (asked by ${admin.username})`));
  await ensureDemoVaultCredential((line) => console.log(`[forms] ${line}`));
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
