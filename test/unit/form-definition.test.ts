import { describe, expect, it } from "vitest";
import { describeZodError, formDefinitionSchema, importedFormSchema } from "../../server/forms/definition";
import { publicForm } from "../../server/forms/public-view";

const minimal = { name: "deploy-app", title: "Deploy the app", playbook: "site.yml" };

/** The error text a bad definition is rejected with, or "valid". */
function problems(input: unknown): string {
  const parsed = formDefinitionSchema.safeParse(input);
  return parsed.success ? "valid" : describeZodError(parsed.error);
}

describe("formDefinitionSchema: valid definitions", () => {
  it("fills every default of a minimal definition", () => {
    expect(formDefinitionSchema.parse(minimal)).toEqual({
      name: "deploy-app",
      title: "Deploy the app",
      description: "",
      playbook: "site.yml",
      inventories: [],
      fields: [],
      tags: [],
      skipTags: [],
      check: false,
      diff: false,
      verbosity: 0,
      keepExtravars: false,
      allowJinjaInExtravars: false,
      launchOptions: [],
      requiresApproval: false,
      credentials: [],
      access: { observe: [], approve: [] },
      notify: [],
    });
  });

  it("reads sandbox: {network: false}, carries it to the runner, and refuses anything else, saying what it takes", async () => {
    const { resolveJobOptions } = await import("../../server/jobs/plan");
    const offline = formDefinitionSchema.parse({ ...minimal, sandbox: { network: false } });
    expect(offline.sandbox).toEqual({ network: false });
    expect(resolveJobOptions(offline, {}).network).toBe(false);
    // Every other form's options are as they were: nothing is sent for the network it always had.
    expect(resolveJobOptions(formDefinitionSchema.parse(minimal), {})).not.toHaveProperty("network");
    expect(resolveJobOptions(formDefinitionSchema.parse({ ...minimal, sandbox: {} }), {})).not.toHaveProperty("network");
    expect(problems({ ...minimal, sandbox: { network: "no" } })).toBe(
      "sandbox.network: must be true or false (false: the playbook gets no network, only a loopback of its own)",
    );
    expect(problems({ ...minimal, sandbox: false })).toBe("sandbox: must be a mapping, e.g. sandbox: {network: false}");
    expect(problems({ ...minimal, sandbox: { network: false, proc: true } })).toMatch(/^sandbox: .*proc/);
  });

  it("reads environment:, and refuses a name RTE_ENVIRONMENTS could not hold, naming the field", () => {
    expect(formDefinitionSchema.parse({ ...minimal, environment: "k8s-2.18" }).environment).toBe("k8s-2.18");
    expect(formDefinitionSchema.parse(minimal).environment).toBeUndefined();
    const rule = "must be an environment name: 1 to 32 of a-z 0-9 . _ - (starting with a letter or digit)";
    expect(problems({ ...minimal, environment: "Ansible 9" })).toBe(`environment: ${rule}`);
    expect(problems({ ...minimal, environment: "" })).toBe(`environment: ${rule}`);
    expect(problems({ ...minimal, environment: "a".repeat(33) })).toBe(`environment: ${rule}`);
    expect(problems({ ...minimal, environment: 9 })).toBe("environment: must be an environment name (text)");
  });

  it("reads access groups, and refuses an unknown access key or a bad group name, naming where", () => {
    const access = { launch: ["dba"], observe: ["ops", "audit.team"], approve: ["leads"] };
    expect(formDefinitionSchema.parse({ ...minimal, access }).access).toEqual(access);
    const unknownKey = formDefinitionSchema.safeParse({ ...minimal, access: { run: ["dba"] } });
    expect(unknownKey.success).toBe(false);
    expect(describeZodError(unknownKey.error!)).toMatch(/^access: .*run/);
    const badName = formDefinitionSchema.safeParse({ ...minimal, access: { observe: ["ops team"] } });
    expect(describeZodError(badName.error!)).toMatch(/^access\.observe\.0: must be letters, digits/);
  });

  it("parses every field type, normalizing select options to { value, label }", () => {
    const form = formDefinitionSchema.parse({
      ...minimal,
      inventories: ["inventories/prod.ini", "hosts.yml"],
      runner: "dmz",
      tags: ["web"],
      skipTags: ["slow"],
      limit: "web*",
      check: true,
      diff: true,
      verbosity: 3,
      fields: [
        { name: "message", type: "text", required: true, default: "hi", pattern: "[a-z ]+", maxLength: 20 },
        { name: "notes", type: "textarea" },
        { name: "db_password", type: "password", label: "DB password" },
        { name: "replicas", type: "number", min: 1, max: 9, integer: true, default: 2 },
        { name: "dry_run", type: "checkbox", default: true },
        { name: "env", type: "select", options: ["dev", { value: "prod", label: "Production" }, { value: "qa" }], default: "dev" },
      ],
    });
    expect(form.runner).toBe("dmz");
    expect(form.limit).toBe("web*");
    expect(form.fields).toEqual([
      { name: "message", type: "text", required: true, default: "hi", pattern: "[a-z ]+", maxLength: 20 },
      { name: "notes", type: "textarea", required: false },
      { name: "db_password", type: "password", label: "DB password", required: false },
      { name: "replicas", type: "number", min: 1, max: 9, integer: true, default: 2, required: false },
      { name: "dry_run", type: "checkbox", default: true, required: false },
      {
        name: "env",
        type: "select",
        required: false,
        default: "dev",
        options: [
          { value: "dev", label: "dev" },
          { value: "prod", label: "Production" },
          { value: "qa", label: "qa" },
        ],
      },
    ]);
  });
});

describe("formDefinitionSchema: rejected definitions name the offending key", () => {
  it("reports missing required keys, and (root) for a non-object", () => {
    expect(problems({})).toBe(
      "name: Invalid input: expected string, received undefined; title: Invalid input: expected string, received undefined; playbook: Invalid input: expected string, received undefined",
    );
    expect(problems("just a string")).toBe("(root): Invalid input: expected object, received string");
  });

  it("reports a bad field name with its index: fields.1.name", () => {
    expect(
      problems({
        ...minimal,
        fields: [
          { name: "ok", type: "text" },
          { name: "1bad", type: "text" },
        ],
      }),
    ).toBe("fields.1.name: must be a valid Ansible variable name");
    expect(problems({ ...minimal, fields: [{ name: "has-dash", type: "text" }] })).toBe(
      "fields.0.name: must be a valid Ansible variable name",
    );
  });

  it("reports an unknown field type at fields.N.type", () => {
    expect(problems({ ...minimal, fields: [{ name: "a", type: "radio" }] })).toMatch(/^fields\.0\.type: /);
  });

  it("rejects a bad form name", () => {
    expect(problems({ ...minimal, name: "Deploy_App" })).toBe("name: must be lowercase letters, digits and dashes");
    expect(problems({ ...minimal, name: "-leading-dash" })).toBe("name: must be lowercase letters, digits and dashes");
  });

  it("rejects duplicate field names at the second occurrence", () => {
    expect(
      problems({
        ...minimal,
        fields: [
          { name: "host", type: "text" },
          { name: "port", type: "number" },
          { name: "host", type: "checkbox" },
        ],
      }),
    ).toBe('fields.2.name: duplicate field name "host"');
  });

  it("rejects a pattern that is not a valid regular expression", () => {
    expect(problems({ ...minimal, fields: [{ name: "a", type: "text", pattern: "([a-z" }] })).toBe(
      "fields.0.pattern: is not a valid regular expression",
    );
    expect(problems({ ...minimal, fields: [{ name: "a", type: "password", pattern: "*x" }] })).toBe(
      "fields.0.pattern: is not a valid regular expression",
    );
  });

  it("rejects a select default that is not one of the options", () => {
    expect(
      problems({ ...minimal, fields: [{ name: "env", type: "select", options: ["dev", { value: "prod" }], default: "Production" }] }),
    ).toBe("fields.0.default: is not one of the options");
    expect(problems({ ...minimal, fields: [{ name: "env", type: "select", options: [] }] })).toMatch(/^fields\.0\.options: /);
  });

  it("rejects playbook and inventory paths that leave the form folder", () => {
    const outside = "playbook: must be a path inside the form folder";
    expect(problems({ ...minimal, playbook: "../other-form/site.yml" })).toBe(outside);
    expect(problems({ ...minimal, playbook: "/etc/ansible/site.yml" })).toBe(outside);
    expect(problems({ ...minimal, playbook: "plays/../../site.yml" })).toBe(outside);
    expect(problems({ ...minimal, playbook: "..\\site.yml" })).toBe(outside);
    expect(problems({ ...minimal, inventories: ["ok.ini", "../../etc/hosts"] })).toBe(
      "inventories.1: must be a path inside the form folder",
    );
    expect(problems({ ...minimal, playbook: "plays/site.yml", inventories: ["inv/a..b.ini"] })).toBe("valid");
  });

  it("rejects out-of-range options", () => {
    expect(problems({ ...minimal, verbosity: 6 })).toMatch(/^verbosity: /);
    expect(problems({ ...minimal, fields: [{ name: "a", type: "text", maxLength: 0 }] })).toMatch(/^fields\.0\.maxLength: /);
    expect(problems({ ...minimal, playbook: "" })).toMatch(/^playbook: /);
  });

  it("reports every problem at once, joined with '; '", () => {
    expect(problems({ ...minimal, name: "BAD", playbook: "/abs.yml" })).toBe(
      "name: must be lowercase letters, digits and dashes; playbook: must be a path inside the form folder",
    );
  });
});

describe("importedFormSchema: a password field's default", () => {
  const withDefault = {
    ...minimal,
    fields: [
      { name: "db_user", type: "text", default: "admin" },
      { name: "db_password", type: "password", default: "hunter2-form-default" },
    ],
  };

  it("is refused at import, naming the form and the field, without repeating the value", () => {
    const parsed = importedFormSchema.safeParse(withDefault);
    expect(parsed.success).toBe(false);
    const message = describeZodError(parsed.error!);
    expect(message).toMatch(/^fields\.1\.default: form "deploy-app": password field "db_password" may not have a default: /);
    expect(message).not.toContain("hunter2-form-default");
    // Without the default, and for other field types, import takes it.
    expect(
      importedFormSchema.safeParse({ ...minimal, fields: [withDefault.fields[0], { name: "db_password", type: "password" }] }).success,
    ).toBe(true);
  });

  it("is still read from what is stored (a form imported by an older version), and never sent to the page", () => {
    const stored = formDefinitionSchema.parse(withDefault);
    const view = publicForm(stored);
    expect(view.fields.map((f) => [f.name, "default" in f ? f.default : undefined])).toEqual([
      ["db_user", "admin"],
      ["db_password", undefined],
    ]);
    expect(JSON.stringify(view)).not.toContain("hunter2-form-default");
  });
});

describe("formDefinitionSchema: a choice of runners (runners:)", () => {
  it("takes a list of runner names, and refuses it with runner:, twice the same name, an empty list or a bad name", () => {
    expect(formDefinitionSchema.parse({ ...minimal, runners: ["dc2", "dmz-1"] }).runners).toEqual(["dc2", "dmz-1"]);
    expect(problems({ ...minimal, runner: "dc2", runners: ["dc2", "dmz-1"] })).toMatch(
      /runners: give either runner: \(one runner\) or runners: \(a choice\), not both/,
    );
    expect(problems({ ...minimal, runners: ["dc2", "dc2"] })).toMatch(/runners\.1: runner "dc2" is named twice/);
    expect(problems({ ...minimal, runners: [] })).toMatch(/runners: must name at least one runner/);
    expect(problems({ ...minimal, runners: ["bad name"] })).toMatch(/runners\.0: must be a runner name/);
  });
});
