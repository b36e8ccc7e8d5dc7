import { describe, expect, it } from "vitest";
import { checkFieldRules, fieldSchema, type FieldInput, type FieldSpec } from "../../server/form-rules/fields";
import { checkValues, conditionHolds, valuesSchema, visibleFieldNames } from "../../server/form-rules/values";
import { formDefinitionSchema, describeZodError } from "../../server/forms/definition";

const fields = (...inputs: FieldInput[]): FieldSpec[] => inputs.map((input) => fieldSchema.parse(input));

const kindForm = fields(
  {
    name: "kind",
    type: "select",
    options: [
      { value: "db", label: "Database" },
      { value: "web", label: "Web" },
    ],
  },
  { name: "dbname", type: "text", required: true, visibleWhen: { field: "kind", equals: "db" } },
  { name: "port", type: "number", integer: true, visibleWhen: { field: "kind", in: ["web"] } },
);

describe("visibleWhen", () => {
  it("hides a field whose condition does not hold: not checked, not sent, required only when shown", () => {
    expect(checkValues(kindForm, { kind: "web", port: 8080 })).toEqual({
      ok: true,
      values: { kind: "web", port: 8080 },
      hidden: ["dbname"],
    });
    expect(checkValues(kindForm, { kind: "db" })).toEqual({ ok: false, errors: { dbname: "is required" } });
    expect(checkValues(kindForm, { kind: "db", dbname: "orders" })).toEqual({
      ok: true,
      values: { kind: "db", dbname: "orders" },
      hidden: ["port"],
    });
  });

  it("drops a value given for a hidden field instead of checking it", () => {
    const checked = checkValues(kindForm, { kind: "web", dbname: 42, port: 80 });
    expect(checked).toEqual({ ok: true, values: { kind: "web", port: 80 }, hidden: ["dbname"] });
  });

  it("evaluates notEmpty, all and any, and treats a hidden field as empty", () => {
    const form = fields(
      { name: "a", type: "text" },
      { name: "b", type: "checkbox" },
      {
        name: "c",
        type: "text",
        visibleWhen: {
          all: [
            { field: "a", notEmpty: true },
            { field: "b", equals: true },
          ],
        },
      },
      {
        name: "d",
        type: "text",
        visibleWhen: {
          any: [
            { field: "c", notEmpty: true },
            { field: "b", equals: false },
          ],
        },
      },
    );
    expect([...visibleFieldNames(form, { a: "x", b: true })]).toEqual(["a", "b", "c"]);
    expect([...visibleFieldNames(form, { a: "x", b: true, c: "y" })]).toEqual(["a", "b", "c", "d"]);
    expect([...visibleFieldNames(form, { a: "", b: false, c: "y" })]).toEqual(["a", "b", "d"]);
  });

  it("compares as text, so a YAML number matches a select's value, and a multiselect by any of its choices", () => {
    expect(conditionHolds({ field: "n", equals: 3 }, { n: "3" })).toBe(true);
    expect(conditionHolds({ field: "m", in: ["x", "z"] }, { m: ["y", "z"] })).toBe(true);
    expect(conditionHolds({ field: "m", equals: "q" }, { m: ["y", "z"] })).toBe(false);
    expect(conditionHolds({ field: "m", notEmpty: true }, { m: [] })).toBe(false);
  });

  it("is refused at import when it names a field that is not defined before it", () => {
    const problems: string[] = [];
    checkFieldRules(
      fields({ name: "x", type: "text", visibleWhen: { field: "y", equals: "1" } }, { name: "y", type: "text" }),
      (path, message) => problems.push(`${path.join(".")}: ${message}`),
    );
    expect(problems).toEqual(['0.visibleWhen: names "y", which is not a field defined before this one']);
  });
});

describe("tables", () => {
  const accounts = fields({
    name: "accounts",
    type: "table",
    minRows: 1,
    maxRows: 3,
    columns: [
      { name: "user", type: "text", required: true },
      { name: "uid", type: "number", integer: true },
      { name: "admin", type: "checkbox" },
    ],
  });

  it("checks every row and answers a list of dicts", () => {
    expect(
      checkValues(accounts, {
        accounts: [
          { user: "ada", uid: "1001" },
          { user: "bob", admin: true },
        ],
      }),
    ).toEqual({
      ok: true,
      values: {
        accounts: [
          { user: "ada", uid: 1001, admin: false },
          { user: "bob", uid: null, admin: true },
        ],
      },
      hidden: [],
    });
  });

  it("names the cell of each problem and the table for the row count", () => {
    expect(
      checkValues(accounts, {
        accounts: [
          { user: "", uid: 1.5 },
          { user: "x", shell: "/bin/sh" },
        ],
      }),
    ).toEqual({
      ok: false,
      errors: {
        "accounts.0.user": "is required",
        "accounts.0.uid": "must be a whole number",
        "accounts.1.shell": "is not a column of this table",
      },
    });
    expect(checkValues(accounts, { accounts: [] })).toEqual({ ok: false, errors: { accounts: "needs at least one row" } });
    expect(checkValues(accounts, {})).toEqual({ ok: false, errors: { accounts: "needs at least one row" } });
    const four = Array.from({ length: 4 }, (_, i) => ({ user: `u${i}` }));
    expect(checkValues(accounts, { accounts: four })).toEqual({ ok: false, errors: { accounts: "has 4 rows, at most 3 allowed" } });
    expect(checkValues(accounts, { accounts: "ada" })).toEqual({ ok: false, errors: { accounts: "must be a list of rows" } });
  });
});

describe("choices", () => {
  const os = fields(
    { name: "os", type: "select", options: ["debian", "rhel"] },
    {
      name: "packages",
      type: "multiselect",
      minItems: 1,
      optionsFrom: { field: "os", map: { debian: ["apt-transport-https", "nginx"], rhel: ["dnf-utils", "nginx"] } },
    },
    { name: "region", type: "select", source: { url: "http://example.test/regions?os={os}" } },
  );

  it("takes a dependent field's choices from the other field's value", () => {
    expect(checkValues(os, { os: "rhel", packages: ["nginx", "dnf-utils"] }).ok).toBe(true);
    expect(checkValues(os, { os: "rhel", packages: ["apt-transport-https"] })).toEqual({
      ok: false,
      errors: { packages: "apt-transport-https: must be one of: dnf-utils, nginx" },
    });
    expect(checkValues(os, { packages: ["nginx"] })).toEqual({
      ok: false,
      errors: { packages: "nginx: has no choices until os is chosen" },
    });
    expect(checkValues(os, { os: "debian", packages: ["nginx", "nginx"] })).toEqual({
      ok: false,
      errors: { packages: "lists nginx twice" },
    });
    expect(checkValues(os, { os: "debian", packages: "nginx" })).toEqual({ ok: false, errors: { packages: "must be a list of choices" } });
  });

  it("checks a source field only against the choices it is given (the server always gives them)", () => {
    expect(checkValues(os, { os: "debian", packages: ["nginx"], region: "mars" }).ok).toBe(true);
    const choices = { region: [{ value: "eu-1", label: "Europe" }] };
    expect(checkValues(os, { os: "debian", packages: ["nginx"], region: "mars" }, { choices })).toEqual({
      ok: false,
      errors: { region: "must be one of: eu-1" },
    });
  });

  it("checks hosts against the inventory's, one or several", () => {
    const hosts = fields({ name: "target", type: "hosts", required: true }, { name: "more", type: "hosts", multiple: true });
    const choices = {
      target: [{ value: "web1", label: "web1" }],
      more: [
        { value: "web1", label: "web1" },
        { value: "db1", label: "db1" },
      ],
    };
    expect(checkValues(hosts, { target: "web1", more: ["db1"] }, { choices })).toEqual({
      ok: true,
      values: { target: "web1", more: ["db1"] },
      hidden: [],
    });
    expect(checkValues(hosts, { target: "web9" }, { choices })).toEqual({ ok: false, errors: { target: "must be one of: web1" } });
  });
});

describe("dates, files, defaults", () => {
  it("accepts ISO dates and times within min and max, and real calendar days only", () => {
    const when = fields(
      { name: "day", type: "date", min: "2026-01-01", max: "2026-12-31" },
      { name: "at", type: "datetime", min: "2026-12-01T08:00" },
    );
    expect(checkValues(when, { day: "2026-02-28", at: "2026-12-01T08:00:30" }).ok).toBe(true);
    expect(checkValues(when, { day: "2026-02-30" })).toEqual({ ok: false, errors: { day: "must be a date like 2026-12-01" } });
    expect(checkValues(when, { day: "2027-01-01" })).toEqual({ ok: false, errors: { day: "must be 2026-12-31 or earlier" } });
    expect(checkValues(when, { at: "2026-12-01T07:59" })).toEqual({ ok: false, errors: { at: "must be 2026-12-01T08:00 or later" } });
    expect(checkValues(when, { at: "2026-12-01 08:00" })).toEqual({
      ok: false,
      errors: { at: "must be a date and time like 2026-12-01T14:30" },
    });
  });

  it("holds an upload's id in a file field", () => {
    const file = fields({ name: "key", type: "file", required: true, accept: [".pem"] });
    expect(checkValues(file, { key: "up_0123456789abcdefXYZ" }).ok).toBe(true);
    expect(checkValues(file, { key: "/etc/shadow" })).toEqual({ ok: false, errors: { key: "must be the id of an uploaded file" } });
    expect(checkValues(file, {})).toEqual({ ok: false, errors: { key: "is required" } });
  });

  it("fills {user.name} and {user.email} in text defaults, for a field left out", () => {
    const owner = fields({ name: "owner", type: "text", default: "{user.name} <{user.email}>" });
    const user = { username: "ada", name: "Ada Lovelace", email: "ada@example.org" };
    expect(checkValues(owner, {}, { user })).toEqual({ ok: true, values: { owner: "Ada Lovelace <ada@example.org>" }, hidden: [] });
    expect(checkValues(owner, {}, { user: { username: "bob" } })).toEqual({ ok: true, values: { owner: "bob <>" }, hidden: [] });
  });

  it("says the length of a text that is too long, as the page's counter does", () => {
    const note = fields({ name: "note", type: "text", maxLength: 500 });
    expect(checkValues(note, { note: "x".repeat(10_000) })).toEqual({
      ok: false,
      errors: { note: "must be at most 500 characters (has 10000)" },
    });
  });
});

describe("valuesSchema", () => {
  it("is the same rules as one zod schema, with one issue per path", () => {
    const schema = valuesSchema(kindForm);
    expect(schema.parse({ kind: "db", dbname: "x" })).toEqual({ kind: "db", dbname: "x" });
    const failed = schema.safeParse({ kind: "db", extra: 1 });
    expect(failed.success).toBe(false);
    expect(failed.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["extra", "is not a field of this form"],
      ["dbname", "is required"],
    ]);
  });
});

describe("form definitions with the new fields", () => {
  const minimal = { name: "f", title: "F", playbook: "site.yml" };
  const problems = (input: object) => {
    const parsed = formDefinitionSchema.safeParse(input);
    return parsed.success ? "" : describeZodError(parsed.error);
  };

  it("requires exactly one source of options, an inventory for hosts, known placeholders", () => {
    expect(problems({ ...minimal, fields: [{ name: "s", type: "select" }] })).toBe(
      "fields.0: needs exactly one of options, optionsFrom or source",
    );
    expect(problems({ ...minimal, fields: [{ name: "h", type: "hosts" }] })).toBe(
      "fields.0: a hosts field needs the form to have an inventory (inventories:)",
    );
    expect(problems({ ...minimal, fields: [{ name: "t", type: "text", default: "{user.phone}" }] })).toBe(
      "fields.0.default: {user.phone} is not a placeholder (use {user.name}, {user.email}, {user.username})",
    );
    expect(problems({ ...minimal, fields: [{ name: "t", type: "table", columns: [{ name: "k", type: "password" }] }] })).toMatch(
      /^fields\.0\.columns\.0\.type/,
    );
    expect(problems({ ...minimal, category: "Databases", fields: [{ name: "day", type: "date", default: "2026-12-01" }] })).toBe("");
  });
});

describe("patternMessage", () => {
  // Before the fix: a value that did not match showed the raw regex ("must match [a-z_][a-z0-9_-]{0,31}").
  const explained = fields(
    { name: "login", type: "text", pattern: "[a-z]+", patternMessage: "must be lowercase letters" },
    {
      name: "accounts",
      type: "table",
      columns: [{ name: "user", type: "text", pattern: "[a-z_][a-z0-9_-]{0,31}", patternMessage: "must be a Linux user name like deploy" }],
    },
    { name: "plain", type: "text", pattern: "[0-9]+" },
  );

  it("is the message of a value that does not match, for a field and a table column", () => {
    expect(checkValues(explained, { login: "Ada", accounts: [{ user: "Ada!" }], plain: "x" })).toEqual({
      ok: false,
      errors: {
        login: "must be lowercase letters",
        "accounts.0.user": "must be a Linux user name like deploy",
        plain: "must match [0-9]+",
      },
    });
    expect(checkValues(explained, { login: "ada", accounts: [{ user: "ada" }], plain: "1" }).ok).toBe(true);
  });

  it("needs a pattern to explain", () => {
    const parsed = formDefinitionSchema.safeParse({
      name: "f",
      title: "F",
      playbook: "site.yml",
      fields: [
        { name: "t", type: "text", patternMessage: "explains nothing" },
        { name: "rows", type: "table", columns: [{ name: "c", type: "text", patternMessage: "nothing either" }] },
      ],
    });
    expect(parsed.success ? "" : describeZodError(parsed.error)).toBe(
      "fields.0.patternMessage: needs a pattern to explain; fields.1.columns.0.patternMessage: needs a pattern to explain",
    );
  });
});
