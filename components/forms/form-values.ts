import type { FormField, FormValue } from "@/components/api/types";

/**
 * What the inputs hold while the user types: text for everything but checkboxes. Numbers
 * stay text so a half-typed "-" or "1e" is not lost; they become numbers on submit.
 */
export type DraftValues = Record<string, string | boolean>;

export function initialDraft(fields: FormField[]): DraftValues {
  const draft: DraftValues = {};
  for (const field of fields) {
    if (field.type === "checkbox") draft[field.name] = field.default === true || field.default === "true";
    else draft[field.name] = field.default === undefined || field.default === null ? "" : String(field.default);
  }
  return draft;
}

/**
 * The `values` object of POST /api/jobs. Empty inputs are left out rather than sent as ""
 * so that the server's rules decide: a required field reports "is required", an optional
 * one takes its default. A number that does not parse is sent as typed, so the server's
 * message names the problem instead of the UI silently dropping it.
 */
export function draftToValues(fields: FormField[], draft: DraftValues): Record<string, FormValue> {
  const values: Record<string, FormValue> = {};
  for (const field of fields) {
    const raw = draft[field.name];
    if (field.type === "checkbox") {
      values[field.name] = raw === true;
      continue;
    }
    if (typeof raw !== "string" || raw.trim() === "") {
      // A required field the person cleared is sent blank, so the server says it is required
      // (left out, the server would fill in the form's default instead).
      if (field.required) values[field.name] = "";
      continue;
    }
    if (field.type === "number") {
      const parsed = Number(raw.trim());
      values[field.name] = Number.isFinite(parsed) ? parsed : raw;
    } else {
      values[field.name] = raw;
    }
  }
  return values;
}
