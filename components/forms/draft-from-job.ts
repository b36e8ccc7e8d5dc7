import type { FormField, FormValue, Job, RunDefaults } from "@/components/api/types";
import { draftOf, initialDraft, type DraftValues } from "./form-values";
import { initialRunOptions, type RunOptionsDraft } from "./run-options";

/**
 * Run again: a finished job's values as the launch form's draft. Fields the job has no value for
 * keep their defaults; password fields stay empty (the job holds them only as "********": they
 * are entered again). Each value becomes what its input holds (form-values.ts `draftOf`: numbers
 * as text, table rows as row drafts); a file field keeps the job's upload, which the same user
 * may launch again. A value the job left blank (null) is blank again, not the form's default.
 */
export function draftFromJob(fields: FormField[], values: Job["values"]): DraftValues {
  const draft: DraftValues = initialDraft(fields);
  for (const field of fields) {
    if (field.type === "password") {
      draft[field.name] = "";
      continue;
    }
    if (!(field.name in values)) continue;
    const value = values[field.name];
    if (field.type === "file")
      draft[field.name] = typeof value === "string" ? { id: value, name: "the file of the job run again", size: -1 } : null;
    else draft[field.name] = draftOf(field, value);
  }
  return draft;
}

/** The job's run options over the form's own settings, as the run options section holds them. */
export function runDraftFromJob(defaults: RunDefaults, options: Job["runOptions"]): RunOptionsDraft {
  const draft = initialRunOptions(defaults);
  if (typeof options.check === "boolean") draft.check = options.check;
  if (typeof options.diff === "boolean") draft.diff = options.diff;
  if (typeof options.limit === "string") draft.limit = options.limit;
  if (Array.isArray(options.tags)) draft.tags = options.tags.join(", ");
  if (typeof options.verbosity === "number") draft.verbosity = options.verbosity;
  return draft;
}

/**
 * The `values` of POST /api/jobs/ID/relaunch from readDraft's values: a field the person
 * cleared (left out by readDraft) is sent as null, so the old job's value does not come back
 * (the server fills in what the request leaves out from the old job).
 */
export function relaunchValues(fields: FormField[], values: Record<string, FormValue>): Record<string, FormValue | null> {
  const all: Record<string, FormValue | null> = { ...values };
  for (const field of fields) if (!(field.name in all)) all[field.name] = null;
  return all;
}

/** Whether the form has fields whose values Run again does not copy. */
export function hasSecretFields(fields: FormField[]): boolean {
  return fields.some((field) => field.type === "password");
}
