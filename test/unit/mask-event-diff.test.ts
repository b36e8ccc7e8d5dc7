/**
 * A drift check's `diff` events (issue 22 §5) carry what --diff printed: file contents, so
 * secrets. The runner masks them as it masks output, then cuts each to 16 Ki characters without
 * leaving the start of a secret at the cut.
 */
import { describe, expect, it } from "vitest";
import { maskEvent } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";

const SECRET = "Hunter2-drift-Secret!x9";
const mask = createMasker([SECRET]);
const event = (diff: string) => ({ v: 1, type: "diff", ts: 1, task: "t", host: "web1", diff });

describe("a diff event", () => {
  it("is masked in every line", () => {
    const masked = maskEvent(event(`--- before\n+++ after\n-password=${SECRET}\n+password=other\n`), mask) as { diff: string };
    expect(masked.diff).not.toContain(SECRET);
    expect(masked.diff).toContain("-password=********");
  });

  it("is cut to 16 Ki characters, and a secret across the cut leaves no start behind", () => {
    const long = "+".repeat(16_384 - 5) + SECRET + "\n";
    const masked = maskEvent(event(long), mask) as { diff: string };
    expect(masked.diff.length).toBeLessThanOrEqual(16_384);
    expect(masked.diff).not.toContain(SECRET.slice(0, 5));
    expect(masked.diff.startsWith("+".repeat(16_000))).toBe(true);
  });
});
