/** The stored forms as users see them (server/forms/public-view.ts), and a form by name or 404. */
import { DomainError } from "../errors";
import { findForm, listForms, type StoredForm } from "../data/forms";
import { publicForm } from "./public-view";

export async function requireForm(name: string): Promise<StoredForm> {
  const form = await findForm(name);
  if (!form) throw new DomainError("not_found", `no form named "${name}"`);
  return form;
}

export async function listPublicForms(): Promise<ReturnType<typeof publicForm>[]> {
  return (await listForms()).map((form) => publicForm(form.definition));
}

export async function publicFormNamed(name: string): Promise<ReturnType<typeof publicForm>> {
  return publicForm((await requireForm(name)).definition);
}
