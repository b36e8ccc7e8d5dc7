import { describe, expect, it } from "vitest";
import type { OutputMarker } from "@/components/api/types";
import type { Timeline, TimelineTask } from "@/server/recap/timeline";
import { firstTaskLine, groupByPlay, timelineTaskLines } from "./task-links";

function marker(line: number, kind: OutputMarker["kind"], name: string, play: string): OutputMarker {
  return { line, kind, name, play };
}

function task(name: string, play: number, kind: TimelineTask["kind"] = "task"): TimelineTask {
  return { task: name, play, kind, start_sec: 0, end_sec: 1, duration_sec: 1, hosts: [] };
}

function timeline(plays: string[], tasks: TimelineTask[]): Pick<Timeline, "tasks" | "plays"> {
  return { plays: plays.map((name, i) => ({ number: i + 1, name, start_sec: 0, end_sec: 1 })), tasks };
}

const markers: OutputMarker[] = [
  marker(1, "play", "web", "web"),
  marker(3, "task", "install", "web"),
  marker(9, "task", "configure", "web"),
  marker(15, "handler", "restart nginx", "web"),
  // A serial play: its second batch prints the same banners again.
  marker(20, "play", "web", "web"),
  marker(22, "task", "install", "web"),
  marker(28, "task", "configure", "web"),
  marker(40, "play", "db", "db"),
  marker(42, "task", "install", "db"),
  marker(50, "recap", "PLAY RECAP", ""),
];

describe("timelineTaskLines", () => {
  it("links each task to its own run: same play name, same name, in order", () => {
    const t = timeline(
      ["web", "web", "db"],
      [
        task("install", 1),
        task("configure", 1),
        task("restart nginx", 1, "handler"),
        task("install", 2),
        task("configure", 2),
        task("install", 3),
      ],
    );
    expect(timelineTaskLines(t, markers)).toEqual([3, 9, 15, 22, 28, 42]);
  });

  it("tells tasks of the same name apart by their play", () => {
    const t = timeline(["db"], [task("install", 1)]);
    expect(timelineTaskLines(t, markers)).toEqual([42]);
  });

  it("skips banners the timeline has no row for, and says null for a task the index lacks", () => {
    const free = [
      marker(1, "play", "p", "p"),
      marker(2, "task", "a", "p"),
      marker(4, "task", "a", "p"),
      marker(6, "task", "b", "p"),
      marker(8, "task", "b", "p"),
    ];
    const t = timeline(["p"], [task("a", 1), task("b", 1), task("missing", 1)]);
    expect(timelineTaskLines(t, free)).toEqual([2, 6, null]);
  });

  it("falls back to the first banner when the order disagrees", () => {
    const t = timeline(["web"], [task("configure", 1), task("install", 1), task("install", 1), task("install", 1)]);
    expect(timelineTaskLines(t, markers)).toEqual([9, 22, 3, 3]);
  });
});

describe("firstTaskLine and groupByPlay", () => {
  it("finds a task's first banner by name", () => {
    expect(firstTaskLine(markers, "configure")).toBe(9);
    expect(firstTaskLine(markers, "restart nginx")).toBe(15);
    expect(firstTaskLine(markers, "web")).toBeNull();
  });

  it("groups the index by play, each run of a play on its own, the recap last", () => {
    const groups = groupByPlay(markers);
    expect(groups.map((g) => [g.play, g.entries.map((e) => e.line)])).toEqual([
      ["web", [1, 3, 9, 15]],
      ["web", [20, 22, 28]],
      ["db", [40, 42, 50]],
    ]);
  });

  it("keeps tasks before any play in a group of their own", () => {
    expect(groupByPlay([marker(2, "task", "x", "")]).map((g) => g.play)).toEqual([""]);
  });
});
