import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DataTable, type Column } from "./data-table";
import { TextField } from "./field";

describe("TextField", () => {
  it("wires its label, help and error to the input", () => {
    const html = renderToStaticMarkup(
      h(TextField, {
        id: "f",
        label: "Name",
        help: "what forms list",
        error: "is taken",
        requiredMark: true,
        look: "prominent",
        value: "x",
        readOnly: true,
      }),
    );
    expect(html).toContain('<label for="f"');
    expect(html).toContain('aria-describedby="f-help f-error"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('aria-required="true"');
    expect(html).toContain('<p id="f-error"');
    expect(html).toContain('title="required"');
  });

  it("lets an error replace the help in the compact look, and has no error state without a message", () => {
    const withError = renderToStaticMarkup(h(TextField, { id: "f", label: "Name", help: "hint", error: "bad", value: "", readOnly: true }));
    expect(withError).not.toContain("hint");
    expect(withError).toContain('aria-describedby="f-error"');
    const fine = renderToStaticMarkup(h(TextField, { id: "f", label: "Name", help: "hint", value: "", readOnly: true }));
    expect(fine).toContain('aria-describedby="f-help"');
    expect(fine).not.toContain("aria-invalid");
  });
});

describe("DataTable", () => {
  type Row = { host: string; ok: number };
  const columns: Column<Row>[] = [
    { key: "host", header: "Host", align: "left", rowHeader: true, cell: (row) => row.host },
    { key: "ok", header: "ok", align: "right", cellProps: (row) => ({ "data-counter": "ok", title: `${row.ok}` }), cell: (row) => row.ok },
  ];

  it("renders a header row, a row per item with its attributes, and row headers", () => {
    const html = renderToStaticMarkup(
      h(DataTable<Row>, {
        testId: "t",
        rows: [{ host: "web1", ok: 3 }],
        columns,
        row: (row) => ({ key: row.host, "data-host": row.host }),
      }),
    );
    expect(html).toContain('data-testid="t"');
    expect(html).toMatch(/<th scope="col" class="[^"]*text-right[^"]*">ok<\/th>/);
    expect(html).toContain('<tr data-host="web1">');
    expect(html).toMatch(/<th scope="row" class="[^"]*">web1<\/th>/);
    expect(html).toMatch(/<td class="[^"]*text-right[^"]*" data-counter="ok" title="3">3<\/td>/);
  });

  it("puts a titled table in a panel", () => {
    const html = renderToStaticMarkup(
      h(DataTable<Row>, { title: "Hosts (1)", testId: "t", rows: [], columns, row: (row) => ({ key: row.host }) }),
    );
    expect(html).toContain("Hosts (1)");
    expect(html).toMatch(/^<section/);
  });
});
