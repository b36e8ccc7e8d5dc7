/**
 * A form's fields as an admin writes them in form.yaml (docs/forms.md is the reference). This
 * module and its neighbours are pure and import nothing of the project, so the browser and the
 * server evaluate the very same definition: the page checks what the API enforces.
 */
import { z } from "zod";

export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const fieldName = z.string().regex(FIELD_NAME, "must be a valid Ansible variable name");

/** 2026-12-01 */
export const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** 2026-12-01T14:30 or 2026-12-01T14:30:05: local wall-clock time, as the browser's picker gives. */
export const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

export function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text) ?? DATETIME.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return false;
  if (match.length > 4) {
    const [hours, minutes, seconds] = [Number(match[4]), Number(match[5]), Number(match[6] ?? 0)];
    if (hours > 23 || minutes > 59 || seconds > 59) return false;
  }
  return true;
}

const dateText = z.string().refine((t) => DATE.test(t) && isCalendarDate(t), "must be a date like 2026-12-01");
const datetimeText = z.string().refine((t) => DATETIME.test(t) && isCalendarDate(t), "must be a date and time like 2026-12-01T14:30");

export const optionSchema = z.union([
  z.union([z.string(), z.number(), z.boolean()]).transform((value) => ({ value: String(value), label: String(value) })),
  z
    .object({ value: z.union([z.string(), z.number(), z.boolean()]).transform(String), label: z.string().optional() })
    .strict()
    .transform((o) => ({ value: o.value, label: o.label ?? o.value })),
]);
export type FieldOption = z.output<typeof optionSchema>;

/** A value a condition compares with; compared as text, so `equals: 3` matches a select's "3". */
const scalar = z.union([z.string(), z.number(), z.boolean()]);

export type Condition =
  | { field: string; equals: string | number | boolean }
  | { field: string; in: (string | number | boolean)[] }
  | { field: string; notEmpty: boolean }
  | { all: Condition[] }
  | { any: Condition[] };

export const conditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.object({ field: fieldName, equals: scalar }).strict(),
    z.object({ field: fieldName, in: z.array(scalar).min(1) }).strict(),
    z.object({ field: fieldName, notEmpty: z.boolean() }).strict(),
    z.object({ all: z.array(conditionSchema).min(1) }).strict(),
    z.object({ any: z.array(conditionSchema).min(1) }).strict(),
  ]),
);

/**
 * Choices fetched by the app, on the user's behalf, from an HTTP JSON source
 * (server/forms/choice-source.ts). `{field}` placeholders in the URL are filled with the other
 * fields' values, URL-encoded. The selectors are JSONPath (`$.items[*]`, `$.name`).
 */
export const choiceSourceSchema = z
  .object({
    url: z.string().regex(/^https?:\/\//, "must be an http:// or https:// URL"),
    /** A stored credential of kind secret: its value is sent as `Authorization: Bearer …`. */
    credential: z.string().optional(),
    /** Where the list is in the answer; the answer itself when absent. */
    items: z.string().default("$[*]"),
    /** The value of one item; the item itself (a string or number) when absent. */
    value: z.string().default("$"),
    /** The label of one item; the value when absent. */
    label: z.string().optional(),
    timeoutSeconds: z.number().positive().max(60).default(5),
    cacheSeconds: z.number().int().min(0).max(86_400).default(60),
  })
  .strict();
export type ChoiceSource = z.output<typeof choiceSourceSchema>;

/** A `{field}` placeholder of a choice source's URL (global: for matchAll and replace). */
export const SOURCE_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The fields a choice source's URL names, each once, in order. */
export function sourcePlaceholders(url: string): string[] {
  return [...new Set([...url.matchAll(SOURCE_PLACEHOLDER)].map((m) => m[1]!))];
}

/** Options looked up in a map by another field's value (`optionsFrom`). */
export const optionsFromSchema = z
  .object({
    field: fieldName,
    map: z.record(z.string(), z.array(optionSchema)),
  })
  .strict();

const common = {
  name: fieldName,
  label: z.string().optional(),
  /** Markdown, rendered without raw HTML. */
  help: z.string().optional(),
  placeholder: z.string().optional(),
  required: z.boolean().default(false),
  /** Shown (and so validated and sent) only when this holds. */
  visibleWhen: conditionSchema.optional(),
};

/** Where a select's or multiselect's choices come from: exactly one of these (checkFieldRules). */
const choiceKeys = {
  options: z.array(optionSchema).min(1).optional(),
  optionsFrom: optionsFromSchema.optional(),
  source: choiceSourceSchema.optional(),
};

/** The keys of each scalar type, the same for a field and a table column of that type. */
const textKeys = {
  default: z.string().optional(),
  pattern: z.string().optional(),
  /** What a value that does not match `pattern` is told, instead of the regex ("must match [a-z]+"). */
  patternMessage: z.string().trim().min(1).max(300).optional(),
  maxLength: z.number().int().positive().max(1_000_000).optional(),
};
const numberKeys = {
  type: z.literal("number"),
  default: z.number().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  integer: z.boolean().default(false),
};
const checkboxKeys = { type: z.literal("checkbox"), default: z.boolean().optional() };
const dateKeys = { type: z.literal("date"), default: dateText.optional(), min: dateText.optional(), max: dateText.optional() };

/** The field types a table's columns may have: scalars only, no secrets, no uploads. */
const columnSchema = z.discriminatedUnion("type", [
  z.object({ ...common, ...textKeys, type: z.enum(["text", "textarea"]) }),
  z.object({ ...common, ...numberKeys }),
  z.object({ ...common, ...checkboxKeys }),
  z.object({ ...common, type: z.literal("select"), options: z.array(optionSchema).min(1), default: z.string().optional() }),
  z.object({ ...common, ...dateKeys }),
]);

export const fieldSchema = z.discriminatedUnion("type", [
  z.object({ ...common, ...textKeys, type: z.enum(["text", "textarea", "password"]) }),
  z.object({ ...common, ...numberKeys }),
  z.object({ ...common, ...checkboxKeys }),
  z.object({
    ...common,
    ...choiceKeys,
    type: z.literal("select"),
    default: z.union([z.string(), z.number()]).transform(String).optional(),
  }),
  z.object({
    ...common,
    ...choiceKeys,
    type: z.literal("multiselect"),
    default: z.array(z.union([z.string(), z.number()]).transform(String)).optional(),
    minItems: z.number().int().min(0).optional(),
    maxItems: z.number().int().positive().optional(),
  }),
  z.object({ ...common, ...dateKeys }),
  z.object({
    ...common,
    type: z.literal("datetime"),
    default: datetimeText.optional(),
    min: datetimeText.optional(),
    max: datetimeText.optional(),
  }),
  z.object({
    ...common,
    type: z.literal("table"),
    columns: z.array(columnSchema).min(1),
    minRows: z.number().int().min(0).default(0),
    maxRows: z.number().int().positive().max(1_000).default(100),
    default: z.array(z.record(z.string(), z.unknown())).optional(),
  }),
  z.object({
    ...common,
    type: z.literal("file"),
    /** Largest upload in bytes (default 10 MiB, at most 100 MiB). */
    maxSize: z
      .number()
      .int()
      .positive()
      .max(100 * 1024 * 1024)
      .default(10 * 1024 * 1024),
    /** Allowed file name extensions (".pem") or MIME types ("text/plain", "image/*"); any when empty. */
    accept: z.array(z.string().regex(/^(\.[A-Za-z0-9._-]+|[a-z]+\/(\*|[A-Za-z0-9.+-]+))$/, "must be like .pem or text/plain")).default([]),
  }),
  z.object({
    ...common,
    type: z.literal("hosts"),
    /** What to choose from the form's inventory: its hosts, its groups, or both. */
    pick: z.enum(["hosts", "groups", "both"]).default("hosts"),
    multiple: z.boolean().default(false),
    /** Which of the form's inventories (a path as listed under `inventories`); the first when absent. */
    inventory: z.string().optional(),
    default: z.union([z.string(), z.array(z.string())]).optional(),
  }),
]);
export type FieldSpec = z.output<typeof fieldSchema>;
export type FieldInput = z.input<typeof fieldSchema>;
export type ColumnSpec = z.output<typeof columnSchema>;
export type FieldType = FieldSpec["type"];

/** The placeholders a text default may hold: filled from the signed-in user. */
export const USER_PLACEHOLDERS = ["user.name", "user.email", "user.username"] as const;

/**
 * The rules a definition must follow beyond each field's shape; the form's own refinement calls
 * this with its fields. A condition or `optionsFrom` may only name a field defined before it, so
 * the rules are evaluated in one pass and can never loop.
 */
export function checkFieldRules(fields: readonly FieldSpec[], addIssue: (path: (string | number)[], message: string) => void): void {
  const before = new Map<string, FieldSpec>();
  fields.forEach((field, index) => {
    if (before.has(field.name)) addIssue([index, "name"], `duplicate field name "${field.name}"`);
    if (field.visibleWhen) {
      for (const name of conditionFields(field.visibleWhen)) {
        if (!before.has(name)) addIssue([index, "visibleWhen"], `names "${name}", which is not a field defined before this one`);
      }
    }
    if (field.type === "text" || field.type === "textarea" || field.type === "password") {
      if (field.pattern && !validRegExp(field.pattern)) addIssue([index, "pattern"], "is not a valid regular expression");
      if (field.patternMessage !== undefined && !field.pattern) addIssue([index, "patternMessage"], "needs a pattern to explain");
    }
    if ((field.type === "text" || field.type === "textarea") && field.default) {
      for (const match of field.default.matchAll(/\{([^{}]*)\}/g)) {
        if (!(USER_PLACEHOLDERS as readonly string[]).includes(match[1]!)) {
          addIssue([index, "default"], `{${match[1]}} is not a placeholder (use ${USER_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")})`);
        }
      }
    }
    if (field.type === "select" || field.type === "multiselect") {
      const sources = [field.options, field.optionsFrom, field.source].filter((s) => s !== undefined).length;
      if (sources !== 1) addIssue([index], "needs exactly one of options, optionsFrom or source");
      if (field.optionsFrom) {
        const from = before.get(field.optionsFrom.field);
        if (!from)
          addIssue([index, "optionsFrom", "field"], `names "${field.optionsFrom.field}", which is not a field defined before this one`);
      }
      const defaults = field.type === "select" ? (field.default === undefined ? [] : [field.default]) : (field.default ?? []);
      if (field.options && defaults.some((d) => !field.options!.some((o) => o.value === d))) {
        addIssue([index, "default"], "is not one of the options");
      }
      if (field.type === "multiselect" && field.minItems !== undefined && field.maxItems !== undefined && field.minItems > field.maxItems) {
        addIssue([index, "minItems"], "is more than maxItems");
      }
    }
    if (field.type === "table") {
      if (field.minRows > field.maxRows) addIssue([index, "minRows"], "is more than maxRows");
      const columns = new Set<string>();
      field.columns.forEach((column, c) => {
        if (columns.has(column.name)) addIssue([index, "columns", c, "name"], `duplicate column name "${column.name}"`);
        columns.add(column.name);
        if (column.visibleWhen) addIssue([index, "columns", c, "visibleWhen"], "columns are always shown: visibleWhen applies to fields");
        if ((column.type === "text" || column.type === "textarea") && column.pattern && !validRegExp(column.pattern)) {
          addIssue([index, "columns", c, "pattern"], "is not a valid regular expression");
        }
        if ((column.type === "text" || column.type === "textarea") && column.patternMessage !== undefined && !column.pattern) {
          addIssue([index, "columns", c, "patternMessage"], "needs a pattern to explain");
        }
        if (column.type === "select" && column.default !== undefined && !column.options.some((o) => o.value === column.default)) {
          addIssue([index, "columns", c, "default"], "is not one of the options");
        }
      });
    }
    if (field.type === "date" || field.type === "datetime") {
      if (field.min !== undefined && field.max !== undefined && field.min > field.max) addIssue([index, "min"], "is after max");
    }
    before.set(field.name, field);
  });
}

export function conditionFields(condition: Condition): string[] {
  if ("all" in condition) return condition.all.flatMap(conditionFields);
  if ("any" in condition) return condition.any.flatMap(conditionFields);
  return [condition.field];
}

function validRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
