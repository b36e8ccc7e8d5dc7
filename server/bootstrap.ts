/**
 * First-start set-up, idempotent on every start: the admin account and the forms folder.
 */
import { randomBytes } from "node:crypto";
import { countUsers, createUser, findUserByUsername, setPassword } from "./data/users";
import { upsertForm } from "./data/forms";
import { loadFormsFrom } from "./forms/import";
import type { AppConfig } from "./config";

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

export async function importForms(config: AppConfig, log: (line: string) => void): Promise<void> {
  const { forms, errors } = loadFormsFrom(config.PLAYFORM_FORMS_DIR);
  for (const error of errors) log(`form not imported: ${error}`);
  for (const form of forms) await upsertForm(form.definition, form.sourceDir);
  log(`imported ${forms.length} form(s) from ${config.PLAYFORM_FORMS_DIR}`);
}
