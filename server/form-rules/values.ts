/**
 * The values a form accepts, as one zod schema built from its fields: the API validates a
 * launch with it (server/forms/values.ts) and the page checks a draft with it before sending,
 * so both give the same message for the same value.
 *
 * Rules (docs/forms.md): fields are evaluated in order; a field whose `visibleWhen` does not
 * hold is hidden: it is neither validated nor sent, and its value, if any was given, is dropped.
 * `required` applies only to visible fields. A condition sees the other fields' checked values.
 */
import { z } from "zod";
import { DATE, DATETIME, isCalendarDate, type ColumnSpec, type Condition, type FieldOption, type FieldSpec } from "./fields";

type Scalar = string | number | boolean | null;

type WithoutSource<T> = T extends unknown ? Omit<T, "source"> : never;
/**
 * A field as the rules need it: the definition's, or the page's copy of it, whose choice
 * source is reduced to what the page may know (server/forms/public-view.ts).
 */
export type RuleField = WithoutSource<FieldSpec>;
export type TableRow = Record<string, Scalar | string[]>;
export type FieldValue = Scalar | string[] | TableRow[];
export type FormValues = Record<string, FieldValue>;
export type FieldErrors = Record<string, string>;

export interface UserContext {
  username: string;
  name?: string | null;
  email?: string | null;
}

export interface RuleContext {
  /**
   * The current choices of the fields whose options do not come with the definition (`source`,
   * `hosts`). A field without an entry is not checked against choices: the page before they
   * have loaded. The server always passes them.
   */
  choices?: Readonly<Record<string, readonly FieldOption[] | undefined>>;
  /** For `{user.name}` in defaults. */
  user?: UserContext;
}

/** An uploaded file's id (server/forms/uploads.ts), the value a `file` field holds. */
export const UPLOAD_ID = /^up_[A-Za-z0-9_-]{16,64}$/;

const MAX_LISTED_CHOICES = 10;

type Checked = { ok: true; value: FieldValue } | { ok: false; message: string };

function isBlank(raw: unknown): boolean {
  return raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "") || (Array.isArray(raw) && raw.length === 0);
}

/** A text default with `{user.name}`, `{user.email}`, `{user.username}` filled in. */
export function fillUserPlaceholders(text: string, user: UserContext | undefined): string {
  return text.replace(/\{user\.(name|email|username)\}/g, (_, key: string) => {
    if (!user) return "";
    if (key === "name") return user.name || user.username;
    if (key === "email") return user.email ?? "";
    return user.username;
  });
}

/** A field's default as a value, placeholders filled; undefined when it has none. */
export function defaultOf(field: RuleField | ColumnSpec, user?: UserContext): FieldValue | undefined {
  if (field.type === "file") return undefined;
  const value = field.default;
  if (value === undefined) return undefined;
  if (typeof value === "string" && (field.type === "text" || field.type === "textarea")) return fillUserPlaceholders(value, user);
  if (field.type === "table") return value as TableRow[];
  return value as FieldValue;
}

/** Whether a condition holds for these (checked) values. A hidden or empty field has no value. */
export function conditionHolds(condition: Condition, values: Readonly<Record<string, unknown>>): boolean {
  if ("all" in condition) return condition.all.every((c) => conditionHolds(c, values));
  if ("any" in condition) return condition.any.some((c) => conditionHolds(c, values));
  const value = Object.hasOwn(values, condition.field) ? values[condition.field] : undefined;
  const present = Array.isArray(value) ? value.map(String) : isBlank(value) || value === false ? [] : [String(value)];
  if ("notEmpty" in condition) return condition.notEmpty === present.length > 0;
  if ("equals" in condition) {
    // A checkbox that is off equals false.
    if (value === false) return String(condition.equals) === "false";
    return present.includes(String(condition.equals));
  }
  const wanted = condition.in.map(String);
  if (value === false) return wanted.includes("false");
  return present.some((p) => wanted.includes(p));
}

/**
 * The choices of a select, multiselect or hosts field for the values so far: its own options,
 * the `optionsFrom` map's entry for the other field's value, or the context's (undefined: not
 * known here, so not checked).
 */
export function choicesOf(
  field: RuleField,
  values: Readonly<Record<string, unknown>>,
  context: RuleContext = {},
): readonly FieldOption[] | undefined {
  if (field.type === "hosts") return context.choices?.[field.name];
  if (field.type !== "select" && field.type !== "multiselect") return undefined;
  if (field.options) return field.options;
  if (field.optionsFrom) {
    const key = values[field.optionsFrom.field];
    return typeof key === "string" || typeof key === "number" || typeof key === "boolean" ? (field.optionsFrom.map[String(key)] ?? []) : [];
  }
  return context.choices?.[field.name];
}

function notAChoice(choices: readonly FieldOption[], dependsOn?: string): string {
  if (choices.length === 0) return dependsOn ? `has no choices until ${dependsOn} is chosen` : "has no choices";
  if (choices.length > MAX_LISTED_CHOICES) return "is not one of the choices";
  return `must be one of: ${choices.map((o) => o.value).join(", ")}`;
}

function checkText(field: { maxLength?: number; pattern?: string; patternMessage?: string }, raw: unknown): Checked {
  if (typeof raw !== "string") return { ok: false, message: "must be a string" };
  if (field.maxLength !== undefined && raw.length > field.maxLength) {
    return { ok: false, message: `must be at most ${field.maxLength} characters (has ${raw.length})` };
  }
  if (field.pattern && !new RegExp(`^(?:${field.pattern})$`).test(raw)) {
    return { ok: false, message: field.patternMessage ?? `must match ${field.pattern}` };
  }
  return { ok: true, value: raw };
}

function checkNumber(field: { min?: number; max?: number; integer: boolean }, raw: unknown): Checked {
  const value = typeof raw === "number" ? raw : typeof raw === "string" ? Number(raw.trim()) : Number.NaN;
  if (!Number.isFinite(value)) return { ok: false, message: "must be a number" };
  if (field.integer && !Number.isInteger(value)) return { ok: false, message: "must be a whole number" };
  if (field.min !== undefined && value < field.min) return { ok: false, message: `must be at least ${field.min}` };
  if (field.max !== undefined && value > field.max) return { ok: false, message: `must be at most ${field.max}` };
  return { ok: true, value };
}

function checkCheckbox(raw: unknown): Checked {
  if (typeof raw === "boolean") return { ok: true, value: raw };
  if (raw === "true" || raw === "false") return { ok: true, value: raw === "true" };
  return { ok: false, message: "must be true or false" };
}

function checkDate(field: { type: "date" | "datetime"; min?: string; max?: string }, raw: unknown): Checked {
  const shape = field.type === "date" ? DATE : DATETIME;
  const example = field.type === "date" ? "2026-12-01" : "2026-12-01T14:30";
  if (typeof raw !== "string" || !shape.test(raw) || !isCalendarDate(raw)) {
    return { ok: false, message: `must be a ${field.type === "date" ? "date" : "date and time"} like ${example}` };
  }
  // Same shape, zero-padded: text order is time order. Seconds are optional in datetimes.
  const key = (text: string) => (field.type === "datetime" && text.length === 16 ? `${text}:00` : text);
  if (field.min !== undefined && key(raw) < key(field.min)) return { ok: false, message: `must be ${field.min} or later` };
  if (field.max !== undefined && key(raw) > key(field.max)) return { ok: false, message: `must be ${field.max} or earlier` };
  return { ok: true, value: raw };
}

function checkChoice(choices: readonly FieldOption[] | undefined, raw: unknown, dependsOn?: string): Checked {
  if (typeof raw === "number") raw = String(raw);
  if (typeof raw !== "string") return { ok: false, message: "must be a string" };
  if (choices && !choices.some((o) => o.value === raw)) return { ok: false, message: notAChoice(choices, dependsOn) };
  return { ok: true, value: raw };
}

function checkList(
  choices: readonly FieldOption[] | undefined,
  raw: unknown,
  limits: { minItems?: number; maxItems?: number },
  dependsOn?: string,
): Checked {
  if (!Array.isArray(raw)) return { ok: false, message: "must be a list of choices" };
  const values: string[] = [];
  for (const item of raw) {
    const checked = checkChoice(choices, item, dependsOn);
    if (!checked.ok) return { ok: false, message: `${String(item)}: ${checked.message}` };
    if (values.includes(checked.value as string)) return { ok: false, message: `lists ${String(item)} twice` };
    values.push(checked.value as string);
  }
  if (limits.minItems !== undefined && values.length < limits.minItems)
    return { ok: false, message: `must have at least ${limits.minItems} chosen` };
  if (limits.maxItems !== undefined && values.length > limits.maxItems)
    return { ok: false, message: `must have at most ${limits.maxItems} chosen` };
  return { ok: true, value: values };
}

type Issue = { path: (string | number)[]; message: string };

function checkColumn(column: ColumnSpec, raw: unknown): Checked {
  if (isBlank(raw)) {
    if (column.type === "checkbox") return { ok: true, value: column.default ?? false };
    if (column.required) return { ok: false, message: "is required" };
    return { ok: true, value: (column.default as Scalar | undefined) ?? null };
  }
  switch (column.type) {
    case "text":
    case "textarea":
      return checkText(column, raw);
    case "number":
      return checkNumber(column, raw);
    case "checkbox":
      return checkCheckbox(raw);
    case "select":
      return checkChoice(column.options, raw);
    case "date":
      return checkDate(column, raw);
  }
}

function checkTable(field: Extract<RuleField, { type: "table" }>, raw: unknown, issues: Issue[]): FieldValue | undefined {
  if (!Array.isArray(raw)) {
    issues.push({ path: [field.name], message: "must be a list of rows" });
    return undefined;
  }
  const minRows = Math.max(field.minRows, field.required ? 1 : 0);
  if (raw.length < minRows) {
    issues.push({ path: [field.name], message: minRows === 1 ? "needs at least one row" : `needs at least ${minRows} rows` });
    return undefined;
  }
  if (raw.length > field.maxRows) {
    issues.push({ path: [field.name], message: `has ${raw.length} rows, at most ${field.maxRows} allowed` });
    return undefined;
  }
  const known = new Set(field.columns.map((c) => c.name));
  const rows: TableRow[] = [];
  const before = issues.length;
  raw.forEach((row: unknown, index) => {
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      issues.push({ path: [field.name, index], message: "must be a row (an object of column values)" });
      return;
    }
    const input = row as Record<string, unknown>;
    for (const key of Object.keys(input)) {
      if (!known.has(key)) issues.push({ path: [field.name, index, key], message: "is not a column of this table" });
    }
    const out: TableRow = {};
    for (const column of field.columns) {
      const checked = checkColumn(column, Object.hasOwn(input, column.name) ? input[column.name] : undefined);
      if (checked.ok) out[column.name] = checked.value as Scalar;
      else issues.push({ path: [field.name, index, column.name], message: checked.message });
    }
    rows.push(out);
  });
  return issues.length === before ? rows : undefined;
}

function checkField(field: RuleField, raw: unknown, values: FormValues, context: RuleContext, issues: Issue[]): FieldValue | undefined {
  // Left out entirely (an API call relying on defaults): the default. Sent but blank (a person
  // cleared it), it is an answer: "required" applies, an optional field falls back to its default.
  const fallback = defaultOf(field, context.user);
  if (raw === undefined && fallback !== undefined) raw = fallback;
  if (field.type === "table") {
    if (raw === undefined || raw === null) raw = fallback ?? [];
    return checkTable(field, raw, issues);
  }
  if (isBlank(raw)) {
    if (field.type === "checkbox") return field.default ?? false;
    if (field.required) {
      issues.push({ path: [field.name], message: "is required" });
      return undefined;
    }
    if (field.type === "multiselect" || (field.type === "hosts" && field.multiple)) return Array.isArray(fallback) ? fallback : [];
    return fallback ?? null;
  }
  let checked: Checked;
  switch (field.type) {
    case "text":
    case "textarea":
    case "password":
      checked = checkText(field, raw);
      break;
    case "number":
      checked = checkNumber(field, raw);
      break;
    case "checkbox":
      checked = checkCheckbox(raw);
      break;
    case "date":
    case "datetime":
      checked = checkDate(field, raw);
      break;
    case "select":
      checked = checkChoice(choicesOf(field, values, context), raw, field.optionsFrom?.field);
      break;
    case "multiselect":
      checked = checkList(choicesOf(field, values, context), raw, field, field.optionsFrom?.field);
      break;
    case "hosts":
      checked = field.multiple
        ? checkList(choicesOf(field, values, context), raw, {})
        : checkChoice(choicesOf(field, values, context), raw);
      break;
    case "file":
      checked =
        typeof raw === "string" && UPLOAD_ID.test(raw)
          ? { ok: true, value: raw }
          : { ok: false, message: "must be the id of an uploaded file" };
      break;
  }
  if (!checked.ok) {
    issues.push({ path: [field.name], message: checked.message });
    return undefined;
  }
  return checked.value;
}

export type ValuesCheck = { ok: true; values: FormValues; hidden: string[] } | { ok: false; errors: FieldErrors };

/**
 * Checks a form's input. Errors are keyed by path: `dbname`, or `accounts.0.user` for a table
 * cell. `hidden` lists the fields left out because their condition did not hold.
 */
export function checkValues(
  fields: readonly RuleField[],
  input: Readonly<Record<string, unknown>>,
  context: RuleContext = {},
): ValuesCheck {
  const issues: Issue[] = [];
  const known = new Set(fields.map((f) => f.name));
  for (const name of Object.keys(input)) {
    if (!known.has(name)) issues.push({ path: [name], message: "is not a field of this form" });
  }
  const values: FormValues = {};
  const hidden: string[] = [];
  for (const field of fields) {
    if (field.visibleWhen && !conditionHolds(field.visibleWhen, values)) {
      hidden.push(field.name);
      continue;
    }
    // Own properties only: a field named "constructor" must not read Object.prototype's.
    const value = checkField(field, Object.hasOwn(input, field.name) ? input[field.name] : undefined, values, context, issues);
    if (value !== undefined) values[field.name] = value;
  }
  if (issues.length > 0) {
    // A Map, then own properties: on a plain object, `errors.constructor ??= …` sees the
    // inherited function and writes nothing, and a key named `__proto__` would set the prototype.
    const errors = new Map<string, string>();
    for (const issue of issues) {
      const key = issue.path.join(".");
      if (!errors.has(key)) errors.set(key, issue.message);
    }
    return { ok: false, errors: Object.fromEntries(errors) as FieldErrors };
  }
  return { ok: true, values, hidden };
}

/** Which fields are shown for these values (the page's view of the same rule). */
export function visibleFieldNames(
  fields: readonly RuleField[],
  input: Readonly<Record<string, unknown>>,
  context: RuleContext = {},
): Set<string> {
  const shown = new Set<string>();
  const values: FormValues = {};
  for (const field of fields) {
    if (field.visibleWhen && !conditionHolds(field.visibleWhen, values)) continue;
    shown.add(field.name);
    // Conditions see checked values; a value that does not check yet is seen as given.
    const raw = Object.hasOwn(input, field.name) ? input[field.name] : defaultOf(field, context.user);
    const value = checkField(field, raw, values, context, []);
    const seen = value !== undefined ? value : (raw as FieldValue | undefined);
    if (seen !== undefined) values[field.name] = seen;
  }
  return shown;
}

/**
 * The same rules as one zod schema: parses input into the checked values, or fails with one
 * issue per problem (path as in `checkValues`'s error keys).
 */
export function valuesSchema(fields: readonly RuleField[], context: RuleContext = {}) {
  return z.record(z.string(), z.unknown()).transform((input, ctx) => {
    const checked = checkValues(fields, input, context);
    if (checked.ok) return checked.values;
    for (const [path, message] of Object.entries(checked.errors)) {
      ctx.addIssue({ code: "custom", path: path.split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p)), message });
    }
    return z.NEVER;
  });
}
