/**
 * Masking secret values in job output before it is spooled or sent.
 *
 * Masking only the raw value is a known leak: playbooks print secrets base64-encoded
 * (`kubectl get secret -o jsonpath`), URL-encoded (connection strings) or JSON-escaped
 * (`debug: var=`). So every secret is masked in each of those encodings too.
 */
export const MASK = "********";

/** Values shorter than this are not masked: masking "a" or "1" would destroy the output. */
const MIN_SECRET_LENGTH = 4;

function encodings(secret: string): string[] {
  const base64 = Buffer.from(secret, "utf8").toString("base64");
  const unpadded = base64.replace(/=+$/, "");
  const urlSafe = unpadded.replace(/\+/g, "-").replace(/\//g, "_");
  const json = JSON.stringify(secret).slice(1, -1);
  const uri = encodeURIComponent(secret);
  // Python's quote() (ansible's `urlencode` filter) also escapes !'()* and keeps "/";
  // quote_plus() writes spaces as "+".
  const python = uri.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const pythonKeepSlash = python.replace(/%2F/g, "/");
  const plus = python.replace(/%20/g, "+");
  return [secret, base64, unpadded, urlSafe, uri, python, pythonKeepSlash, plus, json];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export type Masker = (text: string) => string;

export function createMasker(secrets: readonly string[]): Masker {
  const variants = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (const variant of encodings(secret)) if (variant.length >= MIN_SECRET_LENGTH) variants.add(variant);
  }
  if (variants.size === 0) return (text) => text;
  // Longest first, so a secret's base64 is masked whole rather than leaving a padded tail.
  const pattern = new RegExp(
    [...variants]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join("|"),
    "g",
  );
  return (text) => text.replace(pattern, MASK);
}
