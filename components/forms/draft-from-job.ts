import type { FormField, FormValue, Job, RunDefaults } from "@/components/api/types";
import { initialDraft, type DraftValues } from "./form-values";
import { initialRunOptions, type RunOptionsDraft } from "./run-options";

/**
 * Run again: a finished job's values as the launch form's draft. Fields the job has no value for
 * keep their defaults; password fields stay empty (the job holds them only as "********": they
 * are entered again). Numbers become text as the inputs hold them; strings and booleans stay;
 * arrays and objects (fields of richer types) are kept as they are. A value the job left blank
 * (null) is blank again, not the form's default.
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
    if (value === null || value === undefined) draft[field.name] = field.type === "checkbox" ? false : "";
    else if (typeof value === "number") draft[field.name] = String(value);
    else if (typeof value === "string" || typeof value === "boolean") draft[field.name] = value;
    // Arrays and objects: whatever the field's input holds for them, unchanged.
    else draft[field.name] = value as DraftValues[string];
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
 * The `values` of POST /api/jobs/ID/relaunch from draftToValues' answer: a field the person
 * cleared (left out by draftToValues) is sent as null, so the old job's value does not come back
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
