/**
 * The masker's patterns against output built to make a backtracking regular expression engine
 * take exponential time: a form user picks both the secret and what the playbook prints. Each
 * character of the text must be consumed by one path of a pattern only; where two paths could
 * consume the same text (a run of backslashes split between a backslash of the secret and the
 * escape of the quote after it, '' as one doubled quote or two quotes) a failing match tried
 * every split: 2.4 s for one 80-character line, 16.8 s for a 56-character one (attack scripts
 * mask-backtrack.ts, mask-backtrack-quote.ts). The sizes here took minutes or more on that code;
 * the tests time nothing tightly: the vitest timeout is the hang detector, and the one time
 * comparison (N=30 against N=15) only tells linear from exponential.
 */
import { describe, expect, it } from "vitest";
import { MASK, createMasker } from "../../server/security/mask";

const HANG = 60_000;

/** JSON-escaped with ensure_ascii (Python's json.dumps default), without the quotes. */
function jsonAscii(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Milliseconds to mask `text` and compute pending over it (the masker warmed up first). */
function cost(secret: string, text: string): { ms: number; masked: string } {
  const mask = createMasker([secret]);
  mask("warm up\n");
  mask.pending?.("warm up");
  const started = performance.now();
  const masked = mask(text);
  mask.pending?.(text.trimEnd());
  return { ms: performance.now() - started, masked };
}

describe("masking time on adversarial secrets and output", () => {
  it(
    'masks a secret of \\" repeated against a line of its JSON form cut one short (N=30, 40)',
    () => {
      for (const n of [30, 40]) {
        const secret = '\\"'.repeat(n) + "Z";
        const nearMiss = "x" + '\\\\\\"'.repeat(n - 1) + "y\n";
        const { masked } = cost(secret, nearMiss);
        expect(masked).toBe(nearMiss);
        const line = `"msg": "${jsonAscii(secret)}"\n`;
        expect(cost(secret, line).masked).toBe(`"msg": "${MASK}"\n`);
        // JSON inside JSON (a to_json string printed by debug).
        expect(cost(secret, `x ${jsonAscii(jsonAscii(secret))} y`).masked).toBe(`x ${MASK} y`);
      }
    },
    HANG,
  );

  it(
    "masks a secret of ' repeated against a line of doubled quotes cut one short (N=30, 40)",
    () => {
      for (const n of [30, 40]) {
        const secret = "'".repeat(n) + "q";
        const nearMiss = "''".repeat(n - 1) + "z\n";
        expect(cost(secret, nearMiss).masked).toBe(nearMiss);
        // YAML's single-quoted style doubles every quote.
        expect(cost(secret, `k: '${"''".repeat(n)}q'\n`).masked).toBe(`k: '${MASK}'\n`);
        // repr escapes them: \' (and \\\' inside JSON).
        expect(cost(secret, `[${"\\'".repeat(n)}q]`).masked).toBe(`[${MASK}]`);
        expect(cost(secret, `"${"\\\\\\'".repeat(n)}q"`).masked).toBe(`"${MASK}"`);
      }
    },
    HANG,
  );

  it(
    "takes time linear, not exponential, in N (2N against N, each case)",
    () => {
      const cases: [string, number, (n: number) => string, (n: number) => string][] = [
        ["backslash-quote", 12, (n) => '\\"'.repeat(n) + "Z", (n) => "x" + '\\\\\\"'.repeat(n - 1) + "y\n"],
        ["single quotes", 12, (n) => "'".repeat(n) + "q", (n) => "''".repeat(n - 1) + "z\n"],
        ["backslash-é", 12, (n) => "\\é".repeat(n) + "Z", (n) => "x" + "\\\\\\u00e9".repeat(n - 1) + "y\n"],
        ["backslash-apostrophe", 12, (n) => "\\'".repeat(n) + "Z", (n) => "x" + "\\\\\\'".repeat(n - 1) + "y\n"],
        // A line feed is one or two breaks (YAML's blank line), each escaped at any level, and a
        // double-quoted fold after an escape is an escaped break too.
        ["line feeds", 12, (n) => "a" + "\n".repeat(n) + "b", (n) => "a" + "\n".repeat(2 * n - 1) + "c\n"],
        ["line feeds escaped", 12, (n) => "a" + "\n".repeat(n) + "b", (n) => "a" + "\\n".repeat(2 * n - 1) + "c\n"],
        ["line feeds escaped twice", 6, (n) => "a" + "\n".repeat(n) + "b", (n) => "a" + "\\\\n".repeat(2 * n - 1) + "c\n"],
      ];
      for (const [label, n, secret, text] of cases) {
        // The best of three: the machine is shared.
        const small = Math.min(...[0, 1, 2].map(() => cost(secret(n), text(n).repeat(50)).ms));
        // Twice the size is about twice the work (text and pattern both grow); exponential
        // growth would be thousands of times. 64 times (or 200 ms) leaves room for a noisy neighbour.
        const limit = Math.max(64 * small, 200);
        let large = Infinity;
        for (let i = 0; i < 3 && large >= limit; i++) large = Math.min(large, cost(secret(2 * n), text(2 * n).repeat(50)).ms);
        expect(large, `${label}: N=${n} ${small.toFixed(1)} ms, N=${2 * n} ${large.toFixed(1)} ms`).toBeLessThan(limit);
      }
    },
    HANG,
  );

  it(
    "masks random secrets of \\ \" ' % é in their escaped forms, and ends quickly on lines that nearly hold them",
    () => {
      const started = performance.now();
      let seed = 42;
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return (seed >>> 8) % n;
      };
      const chars = ["\\", '"', "'", "%", "é"];
      /** The forms of each character in the output: raw, JSON, JSON in JSON, YAML single-quoted, repr, URL. */
      const forms: Record<string, string[]> = {
        "\\": ["\\", "\\\\", "\\\\\\\\", "\\\\\\\\\\\\\\\\"],
        '"': ['"', '\\"', '\\\\\\"', '\\\\"'],
        "'": ["'", "''", "\\'", "\\\\\\'"],
        "%": ["%", "%25"],
        é: ["é", "\\u00e9", "\\\\u00e9", "\\xe9", "\\xc3\\xa9", "%C3%A9"],
      };
      const repr = (text: string) => text.replace(/[\\']/g, "\\$&");
      const encodings = [
        (text: string) => text,
        jsonAscii,
        (text: string) => jsonAscii(jsonAscii(text)),
        (text: string) => text.replace(/'/g, "''"),
        repr,
        (text: string) => jsonAscii(repr(text)),
        encodeURIComponent,
      ];
      for (let round = 0; round < 60; round++) {
        // A motif of one to three risky characters repeated: the shape that made runs of
        // backslashes and quotes ambiguous.
        const motif = Array.from({ length: 1 + random(3) }, () => chars[random(chars.length)]!).join("");
        const secret = motif.repeat(Math.ceil((20 + random(16)) / motif.length)) + "Z";
        const mask = createMasker([secret]);
        for (const encode of encodings) {
          const form = encode(secret);
          expect(mask(`<${form}>`), `${JSON.stringify(secret)} as ${JSON.stringify(form)}`).toBe(`<${MASK}>`);
        }
        // Lines that nearly hold it: each encoding of it with the last character wrong, and
        // the escaped forms of its characters mixed.
        const lines = encodings.map((encode) => encode(secret.slice(0, -1) + "y"));
        for (let line = 0; line < 10; line++) {
          lines.push([...secret.slice(0, -1)].map((c) => forms[c]![random(forms[c]!.length)]!).join("") + "y");
        }
        const text = lines.join("\n") + "\n";
        expect(mask(text)).not.toContain(MASK);
        mask.pending?.(lines[1]!);
      }
      // Each line is masked synchronously: the vitest timeout cannot interrupt it, so the
      // hang detector is this.
      expect(performance.now() - started).toBeLessThan(HANG);
    },
    HANG,
  );
});
