import { describe, expect, it } from "vitest";
import type { JobProgress } from "@/components/api/types";
import { basisTitle, progressNow, progressText } from "./progress-text";

const running: JobProgress = {
  job: 7,
  status: "running",
  tasks_seen: 120,
  tasks_expected: 600,
  fraction: 0.2,
  elapsed_sec: 95,
  remaining_sec: 190,
  remaining_range_sec: [170, 236],
  basis: 5,
  overdue: false,
  references: [6, 5, 4, 3, 2],
};

const alone: JobProgress = {
  ...running,
  tasks_expected: null,
  fraction: null,
  remaining_sec: null,
  remaining_range_sec: null,
  basis: 0,
  references: [],
  elapsed_sec: 65,
};

describe("progressText", () => {
  it("says the task and about how long is left, counting down between answers", () => {
    expect(progressText(running, 0)).toBe("task 120 of about 600 · about 3 min 10 s left");
    expect(progressText(running, 10)).toBe("task 120 of about 600 · about 3 min 00 s left");
    expect(progressNow(running, 10)).toEqual({ elapsed: 105, remaining: 180 });
    expect(progressText(running, 500)).toBe("task 120 of about 600 · almost done");
  });

  it("without history: says so, elapsed time only", () => {
    expect(progressText(alone, 0)).toBe("no earlier run of this form to estimate from · 1 min 05 s elapsed");
    expect(basisTitle(alone)).toBe("no earlier run of this form to estimate from");
  });

  it("a run past every earlier one, and one not started", () => {
    expect(progressText({ ...running, overdue: true, remaining_sec: 0 }, 0)).toBe(
      "task 120 of about 600 · longer than earlier runs, almost done",
    );
    expect(progressText({ ...running, tasks_seen: 0 }, 0)).toBe("no task started yet · about 3 min 10 s left");
  });

  it("names the runs it stands on and their spread", () => {
    expect(basisTitle(running)).toBe(
      "Estimated from 5 earlier complete runs of this form (#6, #5, #4, #3, #2); the earlier runs say 2 min 50 s to 3 min 56 s left",
    );
  });
});
