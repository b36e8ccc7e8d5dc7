/**
 * Server-side validation of submitted form values and the extravars built from them.
 * The browser's checks are a convenience; these are the ones that count.
 */
import type { FormDefinition, FormField } from "./definition";

export type FieldErrors = Record<string, string>;
export type FormValues = Record<string, string | number | boolean | null>;

type Checked = { ok: true; value: string | number | boolean | null } | { ok: false; message: string };

function isBlank(raw: unknown): boolean {
  return raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "");
}

function checkField(field: FormField, raw: unknown): Checked {
  // A required field left out entirely (an API call relying on defaults) takes its default;
  // sent but blank (a person cleared it in the form), it is an answer, and "required" applies.
  if (raw === undefined && field.required && field.default !== undefined) raw = field.default;
  if (isBlank(raw)) {
    if (field.type === "checkbox") return { ok: true, value: field.default ?? false };
    if (field.required) return { ok: false, message: "is required" };
    return { ok: true, value: field.default ?? null };
  }
  switch (field.type) {
    case "text":
    case "textarea":
    case "password": {
      if (typeof raw !== "string") return { ok: false, message: "must be a string" };
      if (field.maxLength !== undefined && raw.length > field.maxLength) {
        return { ok: false, message: `must be at most ${field.maxLength} characters` };
      }
      if (field.pattern && !new RegExp(`^(?:${field.pattern})$`).test(raw)) {
        return { ok: false, message: `must match ${field.pattern}` };
      }
      return { ok: true, value: raw };
    }
    case "number": {
      const value = typeof raw === "number" ? raw : typeof raw === "string" ? Number(raw.trim()) : Number.NaN;
      if (!Number.isFinite(value)) return { ok: false, message: "must be a number" };
      if (field.integer && !Number.isInteger(value)) return { ok: false, message: "must be a whole number" };
      if (field.min !== undefined && value < field.min) return { ok: false, message: `must be at least ${field.min}` };
      if (field.max !== undefined && value > field.max) return { ok: false, message: `must be at most ${field.max}` };
      return { ok: true, value };
    }
    case "checkbox":
      if (typeof raw === "boolean") return { ok: true, value: raw };
      if (raw === "true" || raw === "false") return { ok: true, value: raw === "true" };
      return { ok: false, message: "must be true or false" };
    case "select":
      if (typeof raw !== "string" || !field.options.some((o) => o.value === raw)) {
        return { ok: false, message: `must be one of: ${field.options.map((o) => o.value).join(", ")}` };
      }
      return { ok: true, value: raw };
  }
}

export function validateValues(
  form: FormDefinition,
  input: Record<string, unknown>,
): { ok: true; values: FormValues } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const values: FormValues = {};
  const known = new Set(form.fields.map((f) => f.name));
  for (const name of Object.keys(input)) {
    if (!known.has(name)) errors[name] = "is not a field of this form";
  }
  for (const field of form.fields) {
    // Own properties only: a field named "constructor" must not read Object.prototype's.
    const checked = checkField(field, Object.hasOwn(input, field.name) ? input[field.name] : undefined);
    if (checked.ok) values[field.name] = checked.value;
    else errors[field.name] = checked.message;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, values };
}

const JINJA_MARKERS = /\{\{|\{%|\{#/;

/**
 * Extravars for the playbook. A string with Jinja markers is wrapped as `{"__ansible_unsafe": s}`,
 * which ansible's JSON loader turns into an AnsibleUnsafeText: it reaches the playbook verbatim
 * and is never templated, so a user cannot make the playbook evaluate expressions.
 */
export function buildExtravars(form: FormDefinition, values: FormValues): Record<string, unknown> {
  const extravars: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === null) continue;
    extravars[name] =
      typeof value === "string" && !form.allowJinjaInExtravars && JINJA_MARKERS.test(value) ? { __ansible_unsafe: value } : value;
  }
  return extravars;
}

/** Values as shown back to users: password fields never leave the server. */
export function redactValues(form: FormDefinition, values: FormValues): FormValues {
  const redacted: FormValues = { ...values };
  for (const field of form.fields) if (field.type === "password" && redacted[field.name] != null) redacted[field.name] = "********";
  return redacted;
}

/** The password values to mask in output (unwrapped when they were sent as unsafe strings). */
export function secretValues(form: FormDefinition, values: Record<string, unknown>): string[] {
  return form.fields.flatMap((f) => {
    if (f.type !== "password") return [];
    const value = values[f.name];
    if (typeof value === "string") return [value];
    if (typeof value === "object" && value !== null && "__ansible_unsafe" in value && typeof value.__ansible_unsafe === "string") {
      return [value.__ansible_unsafe];
    }
    return [];
  });
}

/** Extravars split into what may be written in the visible file and the password values. */
export function splitSecretExtravars(
  form: FormDefinition,
  extravars: Record<string, unknown>,
): { visible: Record<string, unknown>; hidden: Record<string, unknown> } {
  const secret = new Set(form.fields.filter((f) => f.type === "password").map((f) => f.name));
  const visible: Record<string, unknown> = {};
  const hidden: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(extravars)) (secret.has(name) ? hidden : visible)[name] = value;
  return { visible, hidden };
}
