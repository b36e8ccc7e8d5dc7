/**
 * The imported forms as the rest of the app uses them: stored records with their definition
 * parsed back into a FormDefinition; a form by name or 404.
 */
import { z } from "zod";
import { DomainError } from "../errors";
import { findFormRecord, listFormRecords, type FormRecord } from "../data/forms";
import { formDefinitionSchema, type FormDefinition } from "./definition";
import type { HostChoices } from "./host-choices";

export interface StoredForm {
  id: string;
  name: string;
  definition: FormDefinition;
  /** Its hosts fields' choices, read from its inventory at import (server/forms/host-choices.ts). */
  hostChoices: HostChoices;
  sourceDir: string;
  /** The Git source and commit it was imported from (server/sources); null for the forms folder. */
  sourceName?: string | null;
  sourceCommit?: string | null;
}

const hostChoicesSchema = z.record(z.string(), z.array(z.object({ value: z.string(), label: z.string() })));

function parseStored(record: FormRecord): StoredForm {
  // Definitions were validated on import; parsing again keeps the type honest if the schema grew defaults.
  // Choices stored by an older version, or none yet: the hosts fields offer nothing until the next import.
  const hostChoices = hostChoicesSchema.safeParse(record.hostChoices);
  return { ...record, definition: formDefinitionSchema.parse(record.definition), hostChoices: hostChoices.success ? hostChoices.data : {} };
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
