/**
 * JSON request bodies, read the one way every route reads them (parseJsonBody in route.ts):
 *
 * 1. `Content-Type: application/json` (charset, if any, UTF-8), else 415: a form post or a
 *    text/plain body is not JSON by accident.
 * 2. At most `maxBytes`: a Content-Length above it is refused before reading; otherwise the
 *    body is read as a stream and reading stops once it passes the limit. 413 either way,
 *    with the limit in the message. Unauthenticated routes use SMALL_JSON_BODY_BYTES.
 * 3. Valid UTF-8, decoded strictly. Invalid bytes inside a string are reported on the field
 *    holding them (422); elsewhere the body is malformed (400).
 * 4. No string, and no object key, contains NUL or a lone surrogate (an unpaired UTF-16
 *    half, which JSON's `\ud800` escapes can produce): 422 naming each field. Such text
 *    cannot be stored in PostgreSQL or handed to ansible intact, so it is refused here,
 *    before any schema, for every body.
 * 5. At most MAX_DEPTH levels of nesting.
 * 6. No object key is `__proto__` (422 naming it): copying such an object sets its prototype
 *    instead, so the key would silently vanish.
 */
import { DomainError } from "../errors";

/** The default limit of a JSON body. */
export const DEFAULT_JSON_BODY_BYTES = 1024 * 1024;
/** The limit of the JSON bodies anyone may send without credentials (login, join). */
export const SMALL_JSON_BODY_BYTES = 16 * 1024;
/** Nesting deeper than this is refused (no request body of the API comes close). */
const MAX_DEPTH = 32;
/** Field problems listed before the rest are only counted. */
const MAX_LISTED = 20;

/** 16384 → "16 KiB", 1048576 → "1 MiB", 1000 → "1000 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function bodyTooLarge(maxBytes: number, what = "the request body"): DomainError {
  return new DomainError("payload_too_large", `${what} is larger than the limit of ${formatBytes(maxBytes)} (${maxBytes} bytes)`);
}

/** 415 unless the request says its body is JSON (in UTF-8). */
export function requireJsonContentType(request: Request): void {
  const [media = "", ...parameters] = (request.headers.get("content-type") ?? "").split(";").map((part) => part.trim().toLowerCase());
  if (media !== "application/json") {
    throw new DomainError(
      "unsupported_media_type",
      `send the body as JSON with Content-Type: application/json${media ? ` (not ${media.slice(0, 100)})` : ""}`,
    );
  }
  const charset = parameters.find((p) => p.startsWith("charset="))?.slice("charset=".length);
  if (charset !== undefined && !["utf-8", "utf8", '"utf-8"'].includes(charset)) {
    throw new DomainError("unsupported_media_type", "JSON bodies are UTF-8: send charset=utf-8 or no charset");
  }
}

/** The body's bytes, at most maxBytes of them (413 past that, before reading when Content-Length says so). */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw bodyTooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    // Stop here: the rest is never read (the custom server drains and closes the connection
    // after the answer; cancelling the stream would reset the socket before the 413 is sent).
    if (total > maxBytes) throw bodyTooLarge(maxBytes);
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/**
 * Stands in for each invalid UTF-8 sequence while decoding: a lone surrogate, which valid
 * UTF-8 never decodes to, so the JSON still parses and the string that held it can be named.
 */
const INVALID_MARK = "\udfff";

/** Length of the valid UTF-8 sequence at `i` (WHATWG rules: no overlongs, surrogates or > U+10FFFF), or 0. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const first = bytes[i]!;
  if (first < 0x80) return 1;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (first >= 0xc2 && first <= 0xdf) length = 2;
  else if (first >= 0xe0 && first <= 0xef) {
    length = 3;
    if (first === 0xe0) low = 0xa0;
    if (first === 0xed) high = 0x9f;
  } else if (first >= 0xf0 && first <= 0xf4) {
    length = 4;
    if (first === 0xf0) low = 0x90;
    if (first === 0xf4) high = 0x8f;
  } else return 0;
  if (i + length > bytes.length) return 0;
  if (bytes[i + 1]! < low || bytes[i + 1]! > high) return 0;
  for (let k = 2; k < length; k++) if (bytes[i + k]! < 0x80 || bytes[i + k]! > 0xbf) return 0;
  return length;
}

/** The text of a UTF-8 body, and whether it had invalid sequences (each then decoded as INVALID_MARK). */
export function decodeUtf8(bytes: Uint8Array): { text: string; invalid: boolean } {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), invalid: false };
  } catch {
    // Slow path, only for bodies that are refused anyway: find each invalid sequence.
  }
  const runs = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const parts: string[] = [];
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    parts.push(runs.decode(bytes.subarray(start, i)), INVALID_MARK);
    i += 1;
    start = i;
  }
  parts.push(runs.decode(bytes.subarray(start)));
  const text = parts.join("");
  return { text: text.startsWith("\ufeff") ? text.slice(1) : text, invalid: true };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a string's text, or null. */
function textProblem(text: string, invalidUtf8: boolean): string | null {
  if (text.includes("\u0000")) return "must not contain NUL characters";
  if (LONE_SURROGATE.test(text)) {
    return invalidUtf8 && text.includes(INVALID_MARK) ? "is not valid UTF-8" : "must not contain lone surrogates (unpaired UTF-16 halves)";
  }
  return null;
}

/**
 * Every string and key of a parsed body checked (iteratively: depth is bounded, but no
 * recursion is needed). Throws 422 with `fields` naming where the bad text is.
 */
export function checkJsonText(value: unknown, invalidUtf8: boolean): void {
  const problems: [string, string][] = [];
  let more = 0;
  const report = (path: string, problem: string) => {
    if (problems.length < MAX_LISTED) problems.push([path || "body", problem]);
    else more++;
  };
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: "", depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === "string") {
      const problem = textProblem(item.value, invalidUtf8);
      if (problem) report(item.path, problem);
      continue;
    }
    if (typeof item.value !== "object" || item.value === null) continue;
    if (item.depth >= MAX_DEPTH) throw new DomainError("bad_request", `the request body is nested deeper than ${MAX_DEPTH} levels`);
    const entries = Array.isArray(item.value) ? item.value.map((v, i) => [String(i), v] as const) : Object.entries(item.value);
    const children: typeof stack = [];
    for (const [key, child] of entries) {
      const problem = Array.isArray(item.value) ? null : textProblem(key, invalidUtf8);
      if (problem) report(item.path, `has a key that ${problem}`);
      // JSON.parse makes "__proto__" an own key, but any schema that copies the object assigns
      // it, which sets a prototype instead of a key: the key would vanish without a word.
      else if (key === "__proto__" && !Array.isArray(item.value))
        report(item.path ? `${item.path}.${key}` : key, "is not accepted as a key name");
      else children.push({ value: child, path: item.path ? `${item.path}.${key}` : key, depth: item.depth + 1 });
    }
    // Reversed onto the stack, so problems are reported in the body's order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  if (problems.length === 0) return;
  const listed = problems.map(([path, problem]) => `${path}: ${problem}`).join("; ");
  throw new DomainError("validation_failed", more > 0 ? `${listed}; and ${more} more` : listed, Object.fromEntries(problems));
}

/**
 * The parsed JSON of a request body, through steps 1-5 above. What the value must look like
 * is the caller's schema's business.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  requireJsonContentType(request);
  const { text, invalid } = decodeUtf8(await readBodyBytes(request, maxBytes));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError("bad_request", invalid ? "the request body is not valid UTF-8" : "the request body must be JSON");
  }
  checkJsonText(value, invalid);
  return value;
}
