/**
 * Masking secret values in job output and events before they are spooled or sent.
 *
 * Masking only the raw value is a known leak: playbooks print secrets base64-encoded
 * (`kubectl get secret -o jsonpath`), URL-encoded (connection strings), and above all escaped:
 * every `debug` result is JSON, `to_json` escapes quotes, backslashes and (ensure_ascii) every
 * non-ASCII character, a `to_json` string printed by `debug` is JSON inside JSON, `to_nice_yaml`
 * picks plain, single-quoted ('' for ') or double-quoted styles and folds long lines, and a list
 * turned into a string is Python's repr (\x.., \u...., \'). Listing every combination would
 * multiply without end, so each secret becomes one pattern instead: every character that some
 * format escapes matches each of its escaped forms, at up to three levels of nesting (the
 * backslash counts double at each level). Transport encodings (base64, URL) are plain
 * alternatives. All of it is one compiled regular expression, applied once per text.
 */
export const MASK = "********";

/** Values shorter than this are not masked: masking "a" or "1" would destroy the output. */
const MIN_SECRET_LENGTH = 4;

/**
 * The backslashes that introduce an escape sequence (\n, \u00e4, \x01) at nesting depth 1, 2
 * or 3: each level of JSON or repr escaping doubles them. Longest first, so a shorter count is
 * only tried when the longer one does not continue into the secret.
 */
const ESC = String.raw`(?:\\\\\\\\|\\\\|\\)`;
/** A backslash that is part of the secret: 1 raw, then 2, 4, 8 at depth 1, 2, 3. */
const BACKSLASH = String.raw`(?:\\{8}|\\{4}|\\{2}|\\)`;
/** A line break as printed raw or escaped (JSON of YAML prints `\n`). */
const NEWLINE = `(?:\\n|${ESC}n)`;
/**
 * PyYAML folds scalars longer than 80 columns: plain and single-quoted styles turn a space
 * into a line break and indentation; the double-quoted style ends the line with "\" and
 * writes the space as "\ " after the indentation, and may also break right after an escape.
 */
const SPACE = `(?: |${NEWLINE} *|${ESC}${NEWLINE} *${ESC} )`;
const DOUBLE_QUOTED_FOLD = `(?:${ESC}${NEWLINE} *)?`;

/** One-letter escapes: JSON (b f n r t), Python (t n r), YAML (0 a b t n v f r e N _ L P). */
const SHORT_ESCAPES: Record<number, string> = {
  0x00: "0",
  0x07: "a",
  0x08: "b",
  0x09: "t",
  0x0a: "n",
  0x0b: "v",
  0x0c: "f",
  0x0d: "r",
  0x1b: "e",
  0x85: "N",
  0xa0: "_",
  0x2028: "L",
  0x2029: "P",
};
const LINE_BREAKS = new Set([0x0a, 0x0d, 0x85, 0x2028, 0x2029]);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** Hex digits of `code`, zero-padded, matching upper and lower case (Python writes \xe4, PyYAML \xE4). */
function hex(code: number, width: number): string {
  return [...code.toString(16).padStart(width, "0")].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join("");
}

/** The escape-sequence bodies (after the backslashes) that stand for one code point. */
function escapeBodies(code: number): string[] {
  const bodies: string[] = [];
  const short = SHORT_ESCAPES[code];
  if (short !== undefined) bodies.push(short);
  if (code <= 0xff) bodies.push(`x${hex(code, 2)}`);
  if (code <= 0xffff) bodies.push(`u${hex(code, 4)}`);
  else {
    // JSON's ensure_ascii writes astral characters as a surrogate pair.
    const high = 0xd800 + ((code - 0x10000) >> 10);
    const low = 0xdc00 + ((code - 0x10000) & 0x3ff);
    bodies.push(`u${hex(high, 4)}${ESC}u${hex(low, 4)}`);
  }
  bodies.push(`U${hex(code, 8)}`);
  if (code > 0x7f) {
    // The repr of the UTF-8 bytes (b'p\xc3\xa4ss'): every byte escaped.
    const bytes = [...Buffer.from(String.fromCodePoint(code), "utf8")];
    bodies.push(bytes.map((b, i) => `${i === 0 ? "" : ESC}x${hex(b, 2)}`).join(""));
  }
  return bodies;
}

/** The pattern of one character of a secret: itself, or any of its escaped forms. */
function characterPattern(char: string): string {
  const code = char.codePointAt(0)!;
  if (/[A-Za-z0-9]/.test(char)) return char;
  if (char === " ") return SPACE;
  if (char === "\\") return BACKSLASH;
  // A quote is escaped by one backslash per JSON level (1, 3, 7), by repr only when repr
  // quotes with it (so 2 in the repr of JSON); ' is also doubled in YAML's single-quoted
  // style. The bare quote comes first: a leading literal keeps V8's fast scan working.
  if (char === '"') return String.raw`(?:"|\\{1,7}")`;
  if (char === "'") return String.raw`(?:'|''|\\{1,7}')`;
  // JSON may escape "/" (PHP, some encoders); HTML-safe encoders (Go, kubectl) write < > & as \u00XX.
  if (char === "/") return `(?:\\/|${ESC}\\/)`;
  const printableAscii = code >= 0x20 && code < 0x7f;
  if (printableAscii && !"<>&".includes(char)) return escapeRegExp(char);
  const pattern = `(?:${escapeRegExp(char)}|${ESC}(?:${escapeBodies(code).join("|")})${DOUBLE_QUOTED_FOLD})`;
  if (!LINE_BREAKS.has(code)) return pattern;
  // YAML writes a line break inside a single-quoted or plain scalar as the break (a "\n" as
  // two, raw or escaped when that YAML is printed as JSON) followed by indentation.
  return code === 0x0a ? `${pattern}${pattern}? *` : `${pattern} *`;
}

/** One secret, raw or escaped any number of the ways above (up to three levels deep). */
function escapedSecretPattern(secret: string): string {
  return [...secret].map(characterPattern).join("");
}

/** Transport encodings of the raw value: matched literally. */
function transportEncodings(secret: string): string[] {
  const base64 = Buffer.from(secret, "utf8").toString("base64");
  const unpadded = base64.replace(/=+$/, "");
  const urlSafe = unpadded.replace(/\+/g, "-").replace(/\//g, "_");
  const uri = encodeURIComponent(secret);
  // Python's quote() (ansible's `urlencode` filter) also escapes !'()* and keeps "/";
  // quote_plus() writes spaces as "+".
  const python = uri.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const pythonKeepSlash = python.replace(/%2F/g, "/");
  const plus = python.replace(/%20/g, "+");
  return [base64, unpadded, urlSafe, uri, python, pythonKeepSlash, plus];
}

export type Masker = (text: string) => string;

export function createMasker(secrets: readonly string[]): Masker {
  const alternatives = new Map<string, number>();
  for (const secret of new Set(secrets)) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    alternatives.set(escapedSecretPattern(secret), secret.length);
    for (const variant of transportEncodings(secret)) {
      if (variant !== secret && variant.length >= MIN_SECRET_LENGTH) alternatives.set(escapeRegExp(variant), variant.length);
    }
  }
  if (alternatives.size === 0) return (text) => text;
  // Longest first, so a secret's base64 is masked whole rather than leaving a padded tail, and
  // a secret containing a shorter one is masked whole.
  const pattern = new RegExp(
    [...alternatives]
      .sort((a, b) => b[1] - a[1])
      .map(([source]) => source)
      .join("|"),
    "g",
  );
  return (text) => text.replace(pattern, MASK);
}

/**
 * The same masking over every string of a JSON value (keys included): callback events carry
 * task names, loop items and labels, which hold whatever the playbook templated into them.
 */
export function maskJson(value: unknown, mask: Masker): unknown {
  if (typeof value === "string") return mask(value);
  if (Array.isArray(value)) return value.map((v) => maskJson(v, mask));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[mask(key)] = maskJson(v, mask);
    return out;
  }
  return value;
}
