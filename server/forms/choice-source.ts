/**
 * Choices fetched by the app, on the user's behalf, from a field's HTTP JSON source (docs/forms.md,
 * "Choice sources"): for the page (POST /api/forms/NAME/choices/FIELD) and at launch, where a
 * value that is not among the current choices is refused.
 *
 * - The URL's `{field}` placeholders are filled with the other fields' current values, each
 *   URL-encoded (encodeURIComponent), never templated: a value cannot add a path segment, a
 *   query parameter or a host (placeholders may not stand in the host: server/forms/definition.ts),
 *   nor be a "." or ".." segment. A list (multiselect, hosts) is joined with commas, each item
 *   encoded, so an item's own comma arrives as %2C. An empty value: "fill in LABEL first".
 * - The credential (kind secret) is sent as `Authorization: Bearer …`; it is never logged,
 *   returned or sent on after a redirect (redirects are not followed).
 * - The answer must come within the source's timeoutSeconds, be JSON and at most 5 MiB; the
 *   selectors (JSONPath) run with script evaluation off: the admin writes them, but the data
 *   they run on is remote.
 * - Choices are cached per form, field, filled URL and credential for cacheSeconds, in memory
 *   (the most recently used 500).
 */
import { STATUS_CODES } from "node:http";
import { JSONPath } from "jsonpath-plus";
import { DomainError } from "../errors";
import { SOURCE_PLACEHOLDER, type ChoiceSource, type FieldOption, type FieldSpec } from "../form-rules/fields";
import { choiceSourceToken } from "../credentials/resolve";
import { loggerFor } from "../logging/logger";
import { defaultOf, visibleFieldNames, type UserContext } from "../form-rules/values";
import type { StoredForm } from "./catalog";
import type { FormDefinition } from "./definition";
import { hostChoicesOf } from "./host-choices";

const log = loggerFor({ component: "choice-source" });

export const MAX_SOURCE_BYTES = 5 * 1024 * 1024;
export const MAX_SOURCE_CHOICES = 5000;
const CACHE_ENTRIES = 500;

export type SourceField = Extract<FieldSpec, { type: "select" | "multiselect" }> & { source: ChoiceSource };

export function isSourceField(field: FieldSpec): field is SourceField {
  return (field.type === "select" || field.type === "multiselect") && field.source !== undefined;
}

/** One placeholder's text, encoded; undefined when there is nothing to put there. */
function encodedValue(value: unknown): string | undefined | null {
  if (typeof value === "number" || typeof value === "boolean") return encodeURIComponent(String(value));
  if (typeof value === "string") return value.trim() === "" ? undefined : encodeURIComponent(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    const items = value.map((item) => (typeof item === "string" || typeof item === "number" || typeof item === "boolean" ? item : null));
    return items.includes(null) ? null : items.map((item) => encodeURIComponent(String(item))).join(",");
  }
  return value === undefined || value === null ? undefined : null;
}

/**
 * The source's URL with every `{field}` replaced by that field's value, URL-encoded. Throws a
 * validation_failed DomainError ("fill in Region first") naming the field whose value is missing
 * or is not text, a number, a boolean or a list of those (a table).
 */
export function fillSourceUrl(url: string, fields: readonly FieldSpec[], values: Readonly<Record<string, unknown>>): string {
  const filled = url.replace(SOURCE_PLACEHOLDER, (_, name: string) => {
    const field = fields.find((f) => f.name === name);
    const label = field?.label ?? name;
    const encoded = encodedValue(Object.hasOwn(values, name) ? values[name] : undefined);
    if (encoded === undefined)
      throw new DomainError("validation_failed", `fill in ${label} first`, { [name]: "is needed for the choices" });
    if (encoded === null) {
      throw new DomainError("validation_failed", `${label} cannot be put in the choices' URL`, {
        [name]: "is not text, a number or a list",
      });
    }
    return encoded;
  });
  // Encoding leaves dots alone, and a URL parser resolves a "." or ".." segment (%2E too):
  // a value ".." would climb out of the path the admin wrote.
  const pathPart = filled.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "").split(/[?#]/)[0]!;
  if (pathPart.split("/").some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    throw new DomainError("validation_failed", "a value . or .. cannot be put in the choices' URL");
  }
  return filled;
}

function scalarText(value: unknown): string | undefined {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : undefined;
}

/** The matches of a JSONPath selector, script evaluation off; `$` is the item itself. */
function select(path: string, json: unknown, what: string): unknown[] {
  if (path === "$") return [json];
  // jsonpath-plus answers undefined for a falsy document (0, "", false): nothing to select in it.
  if (typeof json !== "object" || json === null) return [];
  try {
    return (JSONPath({ path, json, wrap: true, eval: false }) as unknown[] | undefined) ?? [];
  } catch (error) {
    throw new DomainError(
      "bad_gateway",
      `the choices source's ${what} selector ${JSON.stringify(path)} failed: ${(error as Error).message}`,
    );
  }
}

/**
 * The choices in a source's answer: the `items` selector's matches, each turned into a value
 * (the `value` selector's first match, as text) and a label (the `label` selector's, or the
 * value). Items without a text, number or boolean value are skipped; a value seen twice is
 * listed once. More than MAX_SOURCE_CHOICES is refused: choosing among them means nothing, and
 * cutting the list would refuse values the source offers.
 */
export function selectChoices(source: Pick<ChoiceSource, "items" | "value" | "label">, json: unknown): FieldOption[] {
  const choices: FieldOption[] = [];
  const seen = new Set<string>();
  for (const item of select(source.items, json, "items")) {
    const value = scalarText(select(source.value, item, "value")[0]);
    if (value === undefined || seen.has(value)) continue;
    seen.add(value);
    const label = source.label === undefined ? value : (scalarText(select(source.label, item, "label")[0]) ?? value);
    choices.push({ value, label });
    if (choices.length > MAX_SOURCE_CHOICES) {
      throw new DomainError(
        "bad_gateway",
        `the choices source gave more than ${MAX_SOURCE_CHOICES} choices: narrow its items selector or URL`,
      );
    }
  }
  return choices;
}

/** The body as text, refused beyond MAX_SOURCE_BYTES (whatever Content-Length said). */
async function readCapped(response: Response): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (declared > MAX_SOURCE_BYTES) {
    await response.body?.cancel();
    throw new DomainError("bad_gateway", `the choices source's answer is over ${MAX_SOURCE_BYTES / 1024 / 1024} MiB`);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_SOURCE_BYTES) {
      await reader.cancel();
      throw new DomainError("bad_gateway", `the choices source's answer is over ${MAX_SOURCE_BYTES / 1024 / 1024} MiB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || (error.cause instanceof Error && error.cause.name === "TimeoutError"));
}

/** One request to the source: its choices, or a DomainError saying what went wrong (502, 504). */
async function fetchChoices(url: string, source: ChoiceSource, token: string | undefined): Promise<FieldOption[]> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const timeout = `the choices source did not answer within ${source.timeoutSeconds} s`;
  let text: string;
  try {
    const response = await fetch(url, { headers, redirect: "manual", signal: AbortSignal.timeout(source.timeoutSeconds * 1000) });
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel();
      const reason = response.statusText || STATUS_CODES[response.status] || "";
      throw new DomainError("bad_gateway", `the choices source answered ${response.status} ${reason}`.trim());
    }
    text = await readCapped(response);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    if (isTimeout(error)) throw new DomainError("gateway_timeout", timeout);
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const code = typeof cause === "object" && cause !== null && "code" in cause ? ` (${String(cause.code)})` : "";
    throw new DomainError("bad_gateway", `the choices source could not be reached${code}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DomainError("bad_gateway", "the choices source did not answer JSON");
  }
  return selectChoices(source, json);
}

/** Answers (or answers being fetched) by form, field, filled URL and credential. */
const cache = new Map<string, { expires: number; choices: Promise<FieldOption[]> }>();

/** Forgets every cached answer (tests). */
export function clearChoiceCache(): void {
  cache.clear();
}

function cached(key: string, seconds: number, load: () => Promise<FieldOption[]>): Promise<FieldOption[]> {
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.expires > now) {
    // Most recently used last: the oldest entry is the first a full cache drops.
    cache.delete(key);
    cache.set(key, hit);
    return hit.choices;
  }
  cache.delete(key);
  const choices = load();
  if (seconds <= 0) return choices;
  // Concurrent askers share one request; a failure is not kept, so the next asker tries again.
  const entry = { expires: now + seconds * 1000, choices };
  cache.set(key, entry);
  choices.catch(() => {
    if (cache.get(key) === entry) cache.delete(key);
  });
  while (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  return choices;
}

/**
 * The current choices of a form's source field for these values (the other fields' current
 * values, as the page has them). Errors are DomainErrors: validation_failed (a placeholder's
 * field is empty), unavailable (the credential cannot be used), bad_gateway, gateway_timeout.
 */
export async function sourceChoices(
  definition: FormDefinition,
  field: SourceField,
  values: Readonly<Record<string, unknown>>,
): Promise<FieldOption[]> {
  const { source } = field;
  const url = fillSourceUrl(source.url, definition.fields, values);
  const key = JSON.stringify([definition.name, field.name, url, source.credential ?? null]);
  return cached(key, source.cacheSeconds, async () => {
    let token: string | undefined;
    if (source.credential !== undefined) {
      const opened = await choiceSourceToken(source.credential);
      if (!opened.ok)
        throw new DomainError("unavailable", `the choices of ${field.label ?? field.name} cannot be fetched: ${opened.message}`);
      token = opened.token;
    }
    try {
      return await fetchChoices(url, source, token);
    } catch (error) {
      // The URL holds the users' values, not the token: it may be logged.
      if (error instanceof DomainError) log().warn({ form: definition.name, field: field.name, url }, error.message);
      throw error;
    }
  });
}

/**
 * The choices a launch's values are checked against (RuleContext.choices): those of the hosts
 * fields that hold a value, from the form's inventory as a runner lists it (503 naming the field
 * when none can now, server/forms/host-choices.ts), and the current choices of every source field that is shown and
 * holds a value or a default (an empty one needs none: the rules then only ask whether it is
 * required).
 * The rules do not check a field without an entry, so every such field gets one, or the launch
 * is refused: a source that cannot answer now fails the launch with its own status (502, 504;
 * 422 for a placeholder's empty field) and a message naming the field. No value is ever
 * accepted unchecked.
 */
export async function choicesAtLaunch(
  form: StoredForm,
  input: Readonly<Record<string, unknown>>,
  user: UserContext,
): Promise<Record<string, FieldOption[]>> {
  const { fields } = form.definition;
  const shown = visibleFieldNames(fields, input, { user });
  // The values the rules will check: one left out or blank takes its default (checkField), so a
  // default is checked against the choices, and fills the URLs, like a value that was sent.
  const effective: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = Object.hasOwn(input, field.name) ? input[field.name] : undefined;
    effective[field.name] = isEmpty(raw) ? (defaultOf(field, user) ?? raw) : raw;
  }
  const wanted = fields.filter(
    (field): field is SourceField => isSourceField(field) && shown.has(field.name) && !isEmpty(effective[field.name]),
  );
  // Hosts fields holding a value: their inventory, listed by a runner (or from the cache).
  const hostFields = fields.filter((field) => field.type === "hosts" && shown.has(field.name) && !isEmpty(effective[field.name]));
  const hostChoices: Record<string, FieldOption[]> = {};
  if (hostFields.length > 0) {
    const listed = await hostChoicesOf(form);
    for (const field of hostFields) {
      const problem = listed.problems[field.name];
      if (problem !== undefined) {
        const message = `the choices of ${field.label ?? field.name} cannot be checked: ${problem}`;
        throw new DomainError("unavailable", message, { [field.name]: message });
      }
      hostChoices[field.name] = listed.choices[field.name] ?? [];
    }
  }
  const fetched = await Promise.all(
    wanted.map(async (field) => {
      try {
        return [field.name, await sourceChoices(form.definition, field, effective)] as const;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const label = field.label ?? field.name;
        const message = `the choices of ${label} cannot be checked: ${error.message}`;
        throw new DomainError(error.code, message, { [field.name]: error.code === "validation_failed" ? error.message : message });
      }
    }),
  );
  return { ...hostChoices, ...Object.fromEntries(fetched) };
}

function isEmpty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === "string" && value.trim() === "") ||
    (Array.isArray(value) && value.length === 0)
  );
}
