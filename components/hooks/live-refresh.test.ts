import { describe, expect, it } from "vitest";
import { JOB_PROGRESS_FIRST_TASK_REFRESH_MS, JOB_PROGRESS_REFRESH_MS, jobProgressRefreshMs } from "./use-job-progress";
import { taskIndexRefreshMs } from "./use-job-tasks";

// A short job's first TASK lines show within a second: what the page says of its tasks must
// not lag them by a full refresh ("no task started yet · almost done", "No tasks yet").
describe("a running job's page asks again sooner until it has seen a task", () => {
  it("progress: every second before the first task, then every three", () => {
    expect(jobProgressRefreshMs(undefined)).toBe(JOB_PROGRESS_FIRST_TASK_REFRESH_MS);
    expect(jobProgressRefreshMs({ tasks_seen: 0 })).toBe(1000);
    expect(jobProgressRefreshMs({ tasks_seen: 1 })).toBe(JOB_PROGRESS_REFRESH_MS);
  });

  it("the task index: every second while empty, then at most every five", () => {
    expect(taskIndexRefreshMs(undefined)).toBe(1000);
    expect(taskIndexRefreshMs([])).toBe(1000);
    expect(taskIndexRefreshMs([{ line: 3 }])).toBe(5000);
  });
});
