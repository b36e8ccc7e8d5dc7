/**
 * A multi-line secret whose lines are all short (backup codes, one per line) printed with a
 * prefix before every line (`--diff`'s "+", a YAML block's indentation, a list's "- "), or with
 * other line ends than its own (a CRLF secret printed with LF): each line is too short to be
 * masked alone (secretLines), the whole was nowhere in the output (attack 4 on issue 34).
 * linePrefixedPattern in server/security/mask.ts.
 */
import { describe, expect, it } from "vitest";
import { createMasker, MASK } from "../../server/security/mask";

const CODES = "ab12cd\nef34gh\nij56kl\nmn78op";

describe("a multi-line secret printed with a prefix on every line", () => {
  it("masks a multi-line secret of lines shorter than 8 characters printed with a prefix on every line (--diff)", () => {
    // Backup codes, one per line: each line short, the whole a secret.
    const codes = CODES;
    const mask = createMasker([codes]);
    const out = mask(
      codes
        .split("\n")
        .map((line) => `+${line}`)
        .join("\n"),
    );
    expect(codes.split("\n").filter((line) => out.includes(line))).toEqual([]);
  });

  it("masks it under YAML indentation, a list dash, a quote or a table bar, with LF or CRLF", () => {
    const mask = createMasker([CODES]);
    for (const prefix of ["    ", "  - ", "> ", "| ", "+ ", "-"]) {
      for (const eol of ["\n", "\r\n"]) {
        const out = mask(
          `codes:${eol}${CODES.split("\n")
            .map((line) => `${prefix}${line}`)
            .join(eol)}${eol}done`,
        );
        expect(
          CODES.split("\n").filter((line) => out.includes(line)),
          JSON.stringify([prefix, eol]),
        ).toEqual([]);
        expect(out).toContain("done");
      }
    }
  });

  it("masks a CRLF secret printed with LF line ends, and an LF secret printed with CRLF", () => {
    const crlf = "k1x9\r\nq7w2\r\nz5m3";
    expect(createMasker([crlf])("a k1x9\nq7w2\nz5m3 b")).toBe(`a ${MASK} b`);
    expect(createMasker([CODES])(`a ${CODES.replace(/\n/g, "\r\n")} b`)).toBe(`a ${MASK} b`);
  });

  it("masks lines that themselves start with prefix characters ('- ' items, indented lines)", () => {
    const secret = "key:\n  - a1b2\n  - c3d4";
    const mask = createMasker([secret]);
    expect(mask("+key:\n+  - a1b2\n+  - c3d4\n")).toBe(`+${MASK}\n`);
  });

  it("does not mask the lines in another order, a different line, or the lines alone", () => {
    const mask = createMasker([CODES]);
    for (const text of [
      "+ab12cd\n+ij56kl\n+ef34gh\n+mn78op",
      "+ab12cd\n+ef34gh\n+ij56kX\n+mn78op",
      "ab12cd and ef34gh",
      "+ab12cd\n+ef34gh\nx ij56kl\n+mn78op",
    ]) {
      expect(mask(text)).toBe(text);
    }
  });

  it("splits a CRLF one way only: a secret of 40 empty lines against 40 CRLF and a near miss", () => {
    const secret = `abcd${"\n".repeat(40)}efgh`;
    const mask = createMasker([secret]);
    const text = `abcd${"\r\n".repeat(40)}efgX`;
    const started = performance.now();
    expect(mask(text)).toBe(text);
    expect(performance.now() - started).toBeLessThan(200);
    expect(mask(`abcd${"\r\n+".repeat(40)}efgh`)).toBe(MASK);
  });

  it("builds a masker for a secret of 2,000 line breaks (no line-prefixed pattern past 256 lines)", () => {
    const mask = createMasker([`abcd${"\n".repeat(2_000)}efgh`]);
    expect(mask(`abcd${"\n".repeat(2_000)}efgh`)).toBe(MASK);
  });

  it("stays fast on 64 KiB of near misses: prefixes, line breaks and the secret's lines but the last", () => {
    const mask = createMasker([CODES, "x1\n\n\n\ny2\n\n\n\nz3"]);
    const texts = [
      "+ab12cd\n+ef34gh\n+ij56kl\n+mn78oX\n".repeat(2_048),
      `ab12cd\n${"+".repeat(65_536)}`,
      `${"ab12cd\n+ ".repeat(8_192)}`,
      `x1${"\n+".repeat(32_768)}`,
      `${"x1\n\n\n\ny2\n\n\n".repeat(4_096)}`,
    ];
    for (const text of texts) {
      const started = performance.now();
      const out = mask(text);
      expect(performance.now() - started).toBeLessThan(200);
      expect(out).toBe(text);
    }
  });
});
