import { describe, expect, it } from "vitest";
import { byCategory } from "./catalog-groups";

const form = (name: string, category: string | null = null) => ({ name, category });

describe("the catalog's sections", () => {
  it("puts Getting started first, the other categories by name, forms without one (Other) last", () => {
    // The example forms' categories (server/forms/examples): Getting started used to come last but Other.
    const groups = byCategory([
      form("big-output", "Diagnostics"),
      form("hello-world", "Getting started"),
      form("loose"),
      form("system-report", "Diagnostics"),
      form("user-accounts", "Examples"),
      form("vault-demo", "Getting started"),
      form("zebra", "Zoo"),
    ]);
    expect(groups.map(([category, forms]) => [category, forms.map((f) => f.name)])).toEqual([
      ["Getting started", ["hello-world", "vault-demo"]],
      ["Diagnostics", ["big-output", "system-report"]],
      ["Examples", ["user-accounts"]],
      ["Zoo", ["zebra"]],
      ["Other", ["loose"]],
    ]);
  });

  it("recognises Getting started whatever its case", () => {
    const groups = byCategory([form("a", "Alpha"), form("b", "getting Started")]);
    expect(groups.map(([category]) => category)).toEqual(["getting Started", "Alpha"]);
  });
});
