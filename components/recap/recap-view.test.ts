import { describe, expect, it } from "vitest";
import type { Recap } from "@/components/api/types";
import { recapView } from "./recap-view";

const base: Recap = {
  plays: [{ number: 1, name: "p", hosts: null }],
  hosts: [],
  elapsed_sec: null,
  slowest_tasks: [],
  changed_tasks: [],
  ignored_failures: [],
  failed_tasks: [],
  unreachable_hosts: [],
  status: "incomplete",
};
const localhost = { host: "localhost", ok: 1, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 };

describe("recapView: an aborted run is not 'No host ran a task', HOSTS 0", () => {
  it("shows an incomplete run's partial hosts and profile_tasks figures, marked partial", () => {
    const view = recapView({
      ...base,
      partial_hosts: [localhost],
      partial_elapsed_sec: 4,
      partial_slowest_tasks: [{ task: "Gathering Facts", seconds: 1.2 }],
    });
    expect(view).toEqual({
      incomplete: true,
      partial: true,
      hosts: [localhost],
      elapsedSec: 4,
      slowest: [{ task: "Gathering Facts", seconds: 1.2 }],
    });
  });

  it("shows a complete run's PLAY RECAP rows and summary", () => {
    const view = recapView({ ...base, status: "successful", hosts: [localhost], elapsed_sec: 9 });
    expect(view).toMatchObject({ incomplete: false, partial: false, hosts: [localhost], elapsedSec: 9 });
  });

  it("an uploaded log's incomplete recap (no partial fields) is still said incomplete", () => {
    expect(recapView(base)).toMatchObject({ incomplete: true, partial: false, hosts: [] });
  });
});
