import { describe, expect, it } from "vitest";
import { formDefinitionSchema } from "../../server/forms/definition";
import { validateRunOptions } from "../../server/forms/run-options";

const form = (launchOptions: string[]) => formDefinitionSchema.parse({ name: "f", title: "F", playbook: "p.yml", launchOptions });

describe("validateRunOptions", () => {
  it("accepts nothing at all, and the options the form offers", () => {
    expect(validateRunOptions(form([]), undefined)).toEqual({ ok: true, options: {} });
    expect(
      validateRunOptions(form(["check", "limit", "tags", "verbosity"]), {
        check: true,
        limit: "web:&prod:!db1",
        tags: ["deploy", "db.migrate"],
        verbosity: 2,
      }),
    ).toEqual({
      ok: true,
      options: { check: true, limit: "web:&prod:!db1", tags: ["deploy", "db.migrate"], verbosity: 2 },
    });
  });

  it("refuses an option the form does not offer, naming it", () => {
    expect(validateRunOptions(form(["check"]), { diff: true })).toEqual({
      ok: false,
      errors: { "options.diff": "this form does not let you choose it at launch" },
    });
  });

  it("refuses values ansible-playbook would read as options or that are not patterns", () => {
    const all = form(["limit", "tags", "verbosity", "check"]);
    const result = validateRunOptions(all, { limit: "--become", tags: ["-x"], verbosity: 5, check: "yes", extra: 1 });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(Object.keys(result.errors).sort()).toEqual([
        "options.check",
        "options.extra",
        "options.limit",
        "options.tags",
        "options.verbosity",
      ]);
      expect(result.errors["options.limit"]).toMatch(/host pattern/);
      expect(result.errors["options.extra"]).toBe("is not a run option");
    }
    expect(validateRunOptions(all, { limit: "web; rm -rf /" }).ok).toBe(false);
  });
});
