import { describe, expect, it } from "vitest";
import { MASK, createMasker } from "../../server/security/mask";

describe("createMasker", () => {
  it("masks the raw value wherever it appears, as often as it appears", () => {
    const mask = createMasker(["hunter2-secret"]);
    expect(mask("pw=hunter2-secret and again hunter2-secret.")).toBe(`pw=${MASK} and again ${MASK}.`);
    expect(MASK).toBe("********");
  });

  it("leaves text without a secret unchanged", () => {
    const mask = createMasker(["hunter2-secret"]);
    expect(mask("PLAY [all] *****\nok: [localhost]\n")).toBe("PLAY [all] *****\nok: [localhost]\n");
  });

  it("masks base64 with padding whole, padding included", () => {
    // base64("abcd1") = "YWJjZDE=": the padded variant must win over the unpadded one.
    const mask = createMasker(["abcd1"]);
    expect(mask("data: YWJjZDE=\n")).toBe(`data: ${MASK}\n`);
  });

  it("masks base64 without padding", () => {
    const mask = createMasker(["abcd1"]);
    expect(mask('"YWJjZDE"')).toBe(`"${MASK}"`);
  });

  it("masks standard and URL-safe base64 of a secret whose base64 holds + and /", () => {
    // base64("???~~?") = "Pz8/fn4/", URL-safe "Pz8_fn4_"; base64("x?>?~") = "eD8+P34=", URL-safe "eD8-P34".
    const mask = createMasker(["???~~?", "x?>?~"]);
    expect(mask("a Pz8/fn4/ b Pz8_fn4_ c")).toBe(`a ${MASK} b ${MASK} c`);
    expect(mask("a eD8+P34= b eD8-P34 c")).toBe(`a ${MASK} b ${MASK} c`);
  });

  it("masks the URL-encoded form (encodeURIComponent)", () => {
    const mask = createMasker(["p@ss word/1"]);
    expect(mask("postgres://app:p%40ss%20word%2F1@db/app")).toBe(`postgres://app:${MASK}@db/app`);
  });

  it("masks the URL-encoded form a playbook prints with ansible's urlencode filter", () => {
    // `{{ 'S3cret!@/x y' | urlencode }}` prints S3cret%21%40/x%20y (Jinja2 quotes "!" and keeps
    // "/"), checked against ansible-core 2.14. encodeURIComponent gives S3cret!%40%2Fx%20y.
    const mask = createMasker(["S3cret!@/x y"]);
    expect(mask("url: https://u:S3cret%21%40/x%20y@example.com")).toBe(`url: https://u:${MASK}@example.com`);
  });

  it("masks the JSON-escaped form (quotes, backslashes, newlines)", () => {
    const secret = 'pa"ss\\wo\nrd';
    const mask = createMasker([secret]);
    // As `debug: var=` prints it inside a JSON string.
    expect(mask('"msg": "pa\\"ss\\\\wo\\nrd"')).toBe(`"msg": "${MASK}"`);
    expect(mask(`raw ${secret} end`)).toBe(`raw ${MASK} end`);
  });

  it("does not mask values shorter than 4 characters, and masks those of exactly 4", () => {
    expect(createMasker(["abc"])("abc abcabc")).toBe("abc abcabc");
    expect(createMasker(["abcd"])("x abcd y")).toBe(`x ${MASK} y`);
    expect(createMasker(["", "a", "12"])("a 12 x")).toBe("a 12 x");
  });

  it("is the identity when there are no secrets", () => {
    const text = "anything at all ********";
    expect(createMasker([])(text)).toBe(text);
  });

  it("masks several secrets, and a longer secret containing a shorter one whole", () => {
    const mask = createMasker(["alpha-1234", "bravo-5678", "alpha-1234-extended"]);
    expect(mask("alpha-1234 / bravo-5678 / alpha-1234-extended")).toBe(`${MASK} / ${MASK} / ${MASK}`);
  });

  it("treats regular-expression metacharacters in secrets literally", () => {
    const secret = "a.b*c+(d)[e]{2}^$|?\\";
    const mask = createMasker([secret]);
    expect(mask(`x ${secret} y`)).toBe(`x ${MASK} y`);
    // "." must not match any character, "*" must not repeat.
    expect(mask("aXbbbc+(d)[e]{2}^$|?\\")).toBe("aXbbbc+(d)[e]{2}^$|?\\");
  });

  it("can be applied again to the same text (no stale regex state between calls)", () => {
    const mask = createMasker(["hunter2-secret"]);
    expect(mask("hunter2-secret")).toBe(MASK);
    expect(mask("hunter2-secret")).toBe(MASK);
  });
});

describe("createMasker with long secrets", () => {
  // A pasted certificate bundle or key file: per-character patterns of it would exceed V8's
  // limit on a regular expression's size ("Regular expression too large" from about 30 KB).
  const long = (size: number) =>
    Array.from({ length: size }, (_, i) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789\n"[(i * 7919) % 63]).join("");

  it.each([40_000, 1_000_000])("masks a %i-character secret as written, JSON-escaped and in base64 at any offset", (size) => {
    const secret = long(size);
    const mask = createMasker([secret, "short-one"]);
    expect(mask(`before ${secret} after`)).toBe(`before ${MASK} after`);
    expect(mask(JSON.stringify({ value: secret }))).toBe(`{"value":"${MASK}"}`);
    for (const prefix of ["", "u", "us", "user:", "user:x"]) {
      const encoded = Buffer.from(`${prefix}${secret}!`).toString("base64");
      const masked = mask(`Authorization: Basic ${encoded}`);
      expect(masked).toContain(MASK);
      // What is left visible is at most the few characters around the secret's whole groups.
      expect(masked.length).toBeLessThan(`Authorization: Basic `.length + MASK.length + 24);
      const url = Buffer.from(`${prefix}${secret}`).toString("base64url");
      expect(mask(url).length).toBeLessThan(MASK.length + 12);
    }
    // The short secret beside it keeps its full treatment.
    expect(mask("short-one")).toBe(MASK);
  });
});
