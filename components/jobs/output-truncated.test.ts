import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { Recap } from "@/components/api/types";
import { RecapReport } from "@/components/recap/recap-report";
import { OutputTruncatedBanner } from "./output-truncated";

const recap: Recap = {
  plays: [{ number: 1, name: "Setup play", hosts: null }],
  hosts: [{ host: "localhost", ok: 2, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 }],
  elapsed_sec: null,
  slowest_tasks: [],
  changed_tasks: [],
  ignored_failures: [],
  failed_tasks: [],
  unreachable_hosts: [],
  status: "successful",
};

describe("a job whose output the runner cut (outputTruncated)", () => {
  it("gets a banner above its output that says so, with the stored line count", () => {
    const html = renderToStaticMarkup(h(OutputTruncatedBanner, { job: { outputTruncated: true, lines: 953203 } }));
    expect(html).toContain('data-testid="output-truncated"');
    expect(html).toContain("Output truncated:");
    expect(html).toContain("PROCESS_MAX_BUFFER");
    expect(html).toContain("953,203 lines");
  });

  it("gets no banner when its output is whole", () => {
    expect(renderToStaticMarkup(h(OutputTruncatedBanner, { job: { outputTruncated: false, lines: 10 } }))).toBe("");
  });

  it("has a recap that says it is partial", () => {
    const html = renderToStaticMarkup(h(RecapReport, { recap: { ...recap, output_truncated: true }, noRecap: "none" }));
    expect(html).toContain("Play recap (partial)");
    expect(html).toContain('data-testid="recap-output-truncated"');
    const whole = renderToStaticMarkup(h(RecapReport, { recap, noRecap: "none" }));
    expect(whole).not.toContain("partial");
    expect(whole).not.toContain("recap-output-truncated");
  });
});
