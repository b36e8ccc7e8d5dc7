import { describe, expect, it } from "vitest";
import type { FormField } from "@/components/api/types";
import { draftFromJob, relaunchValues, runDraftFromJob } from "./draft-from-job";

const field = (name: string, type: FormField["type"], extra: Record<string, unknown> = {}): FormField =>
  ({ name, label: name, type, required: false, ...extra }) as FormField;

describe("draftFromJob", () => {
  const fields = [
    field("message", "text", { default: "hi" }),
    field("count", "number"),
    field("force", "checkbox", { default: true }),
    field("token", "password", { required: true }),
    field("note", "text", { default: "a default" }),
    field("added", "text", { default: "new field" }),
    field("hosts", "multiselect", {
      options: [
        { value: "a", label: "a" },
        { value: "b", label: "b" },
      ],
    }),
    field("accounts", "table", {
      columns: [
        { name: "user", type: "text", required: true },
        { name: "uid", type: "number", integer: false, required: false },
        { name: "admin", type: "checkbox", required: false },
      ],
      minRows: 0,
      maxRows: 10,
    }),
    field("keys", "file", { maxSize: 100, accept: [] }),
  ];

  it("takes the job's values, leaves secrets empty, keeps defaults for fields the job did not have", () => {
    const values = {
      message: "hello",
      count: 3,
      force: false,
      token: "********",
      note: null,
      hosts: ["a", "b"],
      accounts: [{ user: "ada", uid: 1001, admin: true }],
      keys: "up_0123456789abcdefgh",
    };
    expect(draftFromJob(fields, values)).toEqual({
      message: "hello",
      count: "3",
      force: false,
      token: "",
      note: "",
      added: "new field",
      hosts: ["a", "b"],
      // Table rows as the row inputs hold them; the file as the job's upload, kept.
      accounts: [{ user: "ada", uid: "1001", admin: true }],
      keys: { id: "up_0123456789abcdefgh", name: "the file of the job run again", size: -1 },
    });
  });
});

describe("runDraftFromJob", () => {
  it("lays the job's options over the form's settings", () => {
    const defaults = { check: false, diff: false, limit: "", tags: ["x"], verbosity: 0 };
    expect(runDraftFromJob(defaults, { check: true, tags: ["a", "b"], verbosity: 2 })).toEqual({
      check: true,
      diff: false,
      limit: "",
      tags: "a, b",
      verbosity: 2,
    });
  });
});

describe("relaunchValues", () => {
  it("sends a cleared field as null so the old job's value does not come back", () => {
    expect(relaunchValues([field("a", "text"), field("b", "text")], { a: "x" })).toEqual({ a: "x", b: null });
  });
});
