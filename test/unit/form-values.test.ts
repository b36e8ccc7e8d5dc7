import { describe, expect, it } from "vitest";
import { formDefinitionSchema, type FormDefinition } from "../../server/forms/definition";
import { buildExtravars, redactValues, secretValues, validateValues } from "../../server/forms/values";

function form(fields: unknown[], extra: Record<string, unknown> = {}): FormDefinition {
  return formDefinitionSchema.parse({ name: "f", title: "F", playbook: "site.yml", fields, ...extra });
}

/** The one error of one field, or its validated value. */
function check(field: Record<string, unknown>, raw: unknown): { error: string } | { value: unknown } {
  const result = validateValues(form([{ name: "x", ...field }]), raw === undefined ? {} : { x: raw });
  return result.ok ? { value: result.values.x } : { error: result.errors.x! };
}

describe("validateValues: text, textarea, password", () => {
  it("accepts a string as given (not trimmed)", () => {
    expect(check({ type: "text" }, " hello ")).toEqual({ value: " hello " });
    expect(check({ type: "textarea" }, "line 1\nline 2")).toEqual({ value: "line 1\nline 2" });
    expect(check({ type: "password" }, "p@ss")).toEqual({ value: "p@ss" });
  });

  it("treats missing, null, empty and whitespace-only as blank: required error, else default or null", () => {
    for (const blank of [undefined, null, "", "   ", "\n\t"]) {
      expect(check({ type: "text", required: true }, blank)).toEqual({ error: "is required" });
      expect(check({ type: "password", required: true }, blank)).toEqual({ error: "is required" });
      expect(check({ type: "text" }, blank)).toEqual({ value: null });
      expect(check({ type: "text", default: "fallback" }, blank)).toEqual({ value: "fallback" });
    }
  });

  it("refuses a non-string", () => {
    expect(check({ type: "text" }, 12)).toEqual({ error: "must be a string" });
    expect(check({ type: "textarea" }, true)).toEqual({ error: "must be a string" });
    expect(check({ type: "password" }, ["a"])).toEqual({ error: "must be a string" });
  });

  it("enforces maxLength", () => {
    expect(check({ type: "text", maxLength: 3 }, "abc")).toEqual({ value: "abc" });
    expect(check({ type: "text", maxLength: 3 }, "abcd")).toEqual({ error: "must be at most 3 characters (has 4)" });
  });

  it("anchors the pattern to the whole value, alternations included", () => {
    const field = { type: "text", pattern: "[a-z]+" };
    expect(check(field, "abc")).toEqual({ value: "abc" });
    expect(check(field, "abc1")).toEqual({ error: "must match [a-z]+" });
    expect(check(field, "1abc")).toEqual({ error: "must match [a-z]+" });
    expect(check(field, " abc")).toEqual({ error: "must match [a-z]+" });
    const alternation = { type: "text", pattern: "dev|prod" };
    expect(check(alternation, "prod")).toEqual({ value: "prod" });
    expect(check(alternation, "devx")).toEqual({ error: "must match dev|prod" });
    expect(check(alternation, "xprod")).toEqual({ error: "must match dev|prod" });
  });
});

describe("validateValues: number", () => {
  it("accepts numbers and numeric strings", () => {
    expect(check({ type: "number" }, 3.5)).toEqual({ value: 3.5 });
    expect(check({ type: "number" }, "42")).toEqual({ value: 42 });
    expect(check({ type: "number" }, " -7 ")).toEqual({ value: -7 });
    expect(check({ type: "number" }, 0)).toEqual({ value: 0 });
  });

  it("refuses what is not a finite number", () => {
    for (const raw of ["abc", "12abc", "Infinity", Number.NaN, true, {}]) {
      expect(check({ type: "number" }, raw), String(raw)).toEqual({ error: "must be a number" });
    }
  });

  it("enforces integer, min and max (bounds inclusive)", () => {
    const field = { type: "number", integer: true, min: 1, max: 10 };
    expect(check(field, 1)).toEqual({ value: 1 });
    expect(check(field, "10")).toEqual({ value: 10 });
    expect(check(field, 2.5)).toEqual({ error: "must be a whole number" });
    expect(check(field, 0)).toEqual({ error: "must be at least 1" });
    expect(check(field, 11)).toEqual({ error: "must be at most 10" });
    expect(check({ type: "number" }, 2.5)).toEqual({ value: 2.5 });
  });

  it("uses the default or null when blank, and requires a value when required", () => {
    expect(check({ type: "number", default: 3 }, "")).toEqual({ value: 3 });
    expect(check({ type: "number" }, " ")).toEqual({ value: null });
    expect(check({ type: "number", required: true }, "")).toEqual({ error: "is required" });
  });
});

describe("validateValues: checkbox", () => {
  it("coerces booleans and the strings true/false", () => {
    expect(check({ type: "checkbox" }, true)).toEqual({ value: true });
    expect(check({ type: "checkbox" }, false)).toEqual({ value: false });
    expect(check({ type: "checkbox" }, "true")).toEqual({ value: true });
    expect(check({ type: "checkbox" }, "false")).toEqual({ value: false });
  });

  it("is false (or its default) when blank, even when required", () => {
    expect(check({ type: "checkbox" }, undefined)).toEqual({ value: false });
    expect(check({ type: "checkbox", default: true }, "")).toEqual({ value: true });
    expect(check({ type: "checkbox", required: true }, null)).toEqual({ value: false });
  });

  it("refuses anything else", () => {
    for (const raw of ["yes", "1", 1, "TRUE"])
      expect(check({ type: "checkbox" }, raw), String(raw)).toEqual({ error: "must be true or false" });
  });
});

describe("validateValues: select", () => {
  const field = { type: "select", options: ["dev", { value: "prod", label: "Production" }] };

  it("accepts only option values (not labels)", () => {
    expect(check(field, "dev")).toEqual({ value: "dev" });
    expect(check(field, "prod")).toEqual({ value: "prod" });
    expect(check(field, "Production")).toEqual({ error: "must be one of: dev, prod" });
    expect(check(field, "qa")).toEqual({ error: "must be one of: dev, prod" });
    expect(check(field, 1)).toEqual({ error: "must be one of: dev, prod" });
  });

  it("uses the default when blank", () => {
    expect(check({ ...field, default: "prod" }, "")).toEqual({ value: "prod" });
    expect(check({ ...field, required: true }, "")).toEqual({ error: "is required" });
  });
});

describe("validateValues: the whole form", () => {
  const definition = form([
    { name: "host", type: "text", required: true },
    { name: "port", type: "number", integer: true },
    { name: "tls", type: "checkbox" },
  ]);

  it("returns every value, defaults filled", () => {
    expect(validateValues(definition, { host: "db1", port: "5432" })).toEqual({
      ok: true,
      values: { host: "db1", port: 5432, tls: false },
    });
  });

  it("reports every error at once, unknown fields included", () => {
    expect(validateValues(definition, { port: "x", tls: "maybe", extra: "1", __proto_like: 2 })).toEqual({
      ok: false,
      errors: {
        host: "is required",
        port: "must be a number",
        tls: "must be true or false",
        extra: "is not a field of this form",
        __proto_like: "is not a field of this form",
      },
    });
  });

  it("reads only the submitted values, never inherited properties (a field may be named like one)", () => {
    // "constructor" and "toString" are valid Ansible variable names; an optional field left
    // out of the submission must be blank, not Object.prototype's function.
    const inherited = form([
      { name: "constructor", type: "text" },
      { name: "toString", type: "number" },
    ]);
    expect(validateValues(inherited, JSON.parse("{}") as Record<string, unknown>)).toEqual({
      ok: true,
      values: { constructor: null, toString: null },
    });
  });

  it("names an unknown key called like an Object.prototype member (constructor, toString, __proto__, hasOwnProperty)", () => {
    // Before the fix: the error of such a key used to vanish (a plain object's `??=` saw the
    // inherited function), so the API answered 422 with an empty message.
    const input = JSON.parse('{"constructor": "x", "toString": "y", "__proto__": "z", "hasOwnProperty": 1, "valueOf": 2}') as Record<
      string,
      unknown
    >;
    const result = validateValues(form([{ name: "host", type: "text" }]), input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual(["__proto__", "constructor", "hasOwnProperty", "toString", "valueOf"]);
    for (const key of Object.keys(result.errors)) expect(result.errors[key]).toBe("is not a field of this form");
    expect(JSON.parse(JSON.stringify(result.errors))).toHaveProperty(["__proto__"], "is not a field of this form");
  });
});

describe("buildExtravars", () => {
  const definition = form([
    { name: "a", type: "text" },
    { name: "b", type: "text" },
    { name: "c", type: "text" },
    { name: "d", type: "text" },
    { name: "n", type: "number" },
    { name: "flag", type: "checkbox" },
    { name: "empty", type: "text" },
  ]);
  const values = {
    a: "{{ lookup('env', 'HOME') }}",
    b: "{% for x in y %}",
    c: "{# comment #}",
    d: "plain { text } }}",
    n: 4,
    flag: true,
    empty: null,
  };

  it("wraps strings holding {{, {% or {# as __ansible_unsafe; keeps the rest; leaves out nulls", () => {
    expect(buildExtravars(definition, values)).toEqual({
      a: { __ansible_unsafe: "{{ lookup('env', 'HOME') }}" },
      b: { __ansible_unsafe: "{% for x in y %}" },
      c: { __ansible_unsafe: "{# comment #}" },
      d: "plain { text } }}",
      n: 4,
      flag: true,
    });
  });

  it("wraps a marker anywhere in the string", () => {
    expect(buildExtravars(definition, { a: "sum is {{ 6 * 7 }} ok" })).toEqual({ a: { __ansible_unsafe: "sum is {{ 6 * 7 }} ok" } });
  });

  it("passes template strings as they are when the form sets allowJinjaInExtravars", () => {
    const allowing = form(
      [
        { name: "a", type: "text" },
        { name: "b", type: "text" },
      ],
      { allowJinjaInExtravars: true },
    );
    expect(buildExtravars(allowing, { a: "{{ x }}", b: "{% y %}" })).toEqual({ a: "{{ x }}", b: "{% y %}" });
  });
});

describe("redactValues and secretValues", () => {
  const definition = form([
    { name: "user", type: "text" },
    { name: "pw", type: "password" },
    { name: "pw2", type: "password" },
  ]);

  it("replaces password values with ******** and leaves the input untouched", () => {
    const values = { user: "alice", pw: "hunter2", pw2: null };
    expect(redactValues(definition, values)).toEqual({ user: "alice", pw: "********", pw2: null });
    expect(values.pw).toBe("hunter2");
  });

  it("lists the password values to be masked", () => {
    expect(secretValues(definition, { user: "alice", pw: "hunter2", pw2: null })).toEqual(["hunter2"]);
  });
});

describe("a required field with a default", () => {
  const field = { type: "select", options: ["short", "full"], default: "short", required: true };

  it("takes the default when the value is left out entirely (an API call)", () => {
    expect(check(field, undefined)).toEqual({ value: "short" });
  });

  it("is required when sent blank (a person cleared it)", () => {
    expect(check(field, "")).toEqual({ error: "is required" });
    expect(check({ type: "text", default: "hello", required: true }, "  ")).toEqual({ error: "is required" });
  });
});
