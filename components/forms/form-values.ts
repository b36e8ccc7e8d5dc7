import type { FormField, FormValue } from "@/components/api/types";
import { defaultOf, visibleFieldNames, type UserContext } from "@/server/form-rules/values";

/** An uploaded file as a `file` field holds it while the user fills the form. */
export interface UploadDraft {
  id: string;
  name: string;
  /** -1 when not known (the upload of a job run again). */
  size: number;
}

/** One table row while the user types: text for everything but checkboxes. */
export type RowDraft = Record<string, string | boolean>;

/**
 * What the inputs hold while the user types. Numbers, dates and choices stay text so a
 * half-typed "-" or "1e" is not lost; they become values on submit.
 */
export type DraftValue = string | boolean | string[] | RowDraft[] | UploadDraft | null;
export type DraftValues = Record<string, DraftValue>;

type Column = Extract<FormField, { type: "table" }>["columns"][number];

function scalarDraft(value: unknown): string {
  return value === undefined || value === null ? "" : String(value);
}

export function initialRow(columns: readonly Column[]): RowDraft {
  const row: RowDraft = {};
  for (const column of columns) {
    row[column.name] = column.type === "checkbox" ? column.default === true : scalarDraft(column.default);
  }
  return row;
}

/** The draft of one field's value (a default, or a job's value when running it again). */
export function draftOf(field: FormField, value: unknown): DraftValue {
  switch (field.type) {
    case "checkbox":
      return value === true || value === "true";
    case "multiselect":
      return Array.isArray(value) ? value.map(String) : [];
    case "hosts":
      if (field.multiple) return Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : [];
      return scalarDraft(value);
    case "table":
      if (!Array.isArray(value)) return [];
      return value.map((row: unknown) => {
        const draft = initialRow(field.columns);
        const cells = typeof row === "object" && row !== null ? (row as Record<string, unknown>) : {};
        for (const column of field.columns) {
          if (!Object.hasOwn(cells, column.name)) continue;
          draft[column.name] = column.type === "checkbox" ? cells[column.name] === true : scalarDraft(cells[column.name]);
        }
        return draft;
      });
    case "file":
      return null;
    default:
      return scalarDraft(value);
  }
}

export function initialDraft(fields: readonly FormField[], user?: UserContext): DraftValues {
  const draft: DraftValues = {};
  for (const field of fields) draft[field.name] = draftOf(field, defaultOf(field, user));
  return draft;
}

function textValue(type: string, raw: string): FormValue {
  if (type !== "number") return raw;
  const parsed = Number(raw.trim());
  // A number that does not parse is sent as typed, so the server's message names the problem.
  return Number.isFinite(parsed) ? parsed : raw;
}

function rowValue(columns: readonly Column[], row: RowDraft): Record<string, FormValue> {
  const out: Record<string, FormValue> = {};
  for (const column of columns) {
    const raw = row[column.name];
    if (column.type === "checkbox") out[column.name] = raw === true;
    else if (typeof raw === "string" && raw.trim() !== "") out[column.name] = textValue(column.type, raw);
  }
  return out;
}

/** Every field's value as typed so far, hidden ones included (for the visibility rules). */
function allValues(fields: readonly FormField[], draft: DraftValues): Record<string, FormValue> {
  const values: Record<string, FormValue> = {};
  for (const field of fields) {
    const raw = draft[field.name];
    if (field.type === "checkbox") values[field.name] = raw === true;
    else if (field.type === "table")
      values[field.name] = (Array.isArray(raw) ? (raw as RowDraft[]) : []).map((row) => rowValue(field.columns, row)) as FormValue;
    else if (field.type === "file") {
      if (raw && typeof raw === "object" && !Array.isArray(raw)) values[field.name] = raw.id;
    } else if (Array.isArray(raw)) values[field.name] = raw as string[];
    else if (typeof raw === "string" && raw.trim() !== "") values[field.name] = textValue(field.type, raw);
    // A required field the person cleared is sent blank, so the server says it is required
    // (left out, the server would fill in the form's default instead).
    else if (field.required) values[field.name] = "";
  }
  return values;
}

/**
 * The draft as the API reads it: the fields shown (server/form-rules: the rule the API applies)
 * and the `values` object of POST /api/jobs. Hidden fields are left out; empty inputs are left
 * out rather than sent as "" so that the server's rules decide: a required field reports "is
 * required", an optional one takes its default.
 */
export function readDraft(
  fields: readonly FormField[],
  draft: DraftValues,
  user?: UserContext,
): { visible: Set<string>; values: Record<string, FormValue> } {
  const all = allValues(fields, draft);
  const visible = visibleFieldNames(fields, all, { user });
  return { visible, values: Object.fromEntries(Object.entries(all).filter(([name]) => visible.has(name))) };
}
