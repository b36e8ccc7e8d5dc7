/**
 * The imported forms as the rest of the app uses them: stored records with their definition
 * parsed back into a FormDefinition; a form by name or 404.
 */
import { DomainError } from "../errors";
import { findFormRecord, listFormRecords, type FormRecord } from "../data/forms";
import { formDefinitionSchema, type FormDefinition } from "./definition";

export interface StoredForm {
  id: string;
  name: string;
  definition: FormDefinition;
  sourceDir: string;
  /** The Git source and commit it was imported from (server/sources); null for the forms folder. */
  sourceName?: string | null;
  sourceCommit?: string | null;
}

function parseStored(record: FormRecord): StoredForm {
  // Definitions were validated on import; parsing again keeps the type honest if the schema grew defaults.
  // Hosts fields' choices stored by an older version are ignored: a runner lists the inventory
  // when a page needs it (server/forms/host-choices.ts).
  const { hostChoices: _stored, ...rest } = record;
  return { ...rest, definition: formDefinitionSchema.parse(record.definition) };
}

/** Every imported form, by title. */
export async function listForms(): Promise<StoredForm[]> {
  return (await listFormRecords()).map(parseStored);
}

export async function findForm(name: string): Promise<StoredForm | null> {
  const record = await findFormRecord(name);
  return record ? parseStored(record) : null;
}

export async function requireForm(name: string): Promise<StoredForm> {
  const form = await findForm(name);
  if (!form) throw new DomainError("not_found", `no form named "${name}"`);
  return form;
}
