import { describe, expect, it } from "vitest";
import {
  durationBarHeights,
  formatDurationDelta,
  formatDurationSeconds,
  formatElapsedFloor,
  formatElapsedFloorDelta,
  formatDuration,
} from "@/components/ui/format";

// Header, timeline, recap, comparison and trend printed the same run's
// time with different precisions ("1.6s", "0.91s", "0s") before. One formatter, one precision.
describe("formatDurationSeconds: the one duration format", () => {
  it("is sub-second below a minute", () => {
    expect(formatDurationSeconds(0.91)).toBe("0.91 s");
    expect(formatDurationSeconds(3.3412)).toBe("3.34 s");
    expect(formatDurationSeconds(0)).toBe("0.00 s");
    expect(formatDurationSeconds(59.994)).toBe("59.99 s");
  });
  it("is minutes and zero-padded seconds from a minute", () => {
    expect(formatDurationSeconds(59.996)).toBe("1 min 00 s");
    expect(formatDurationSeconds(65.2)).toBe("1 min 05 s");
    expect(formatDurationSeconds(3725)).toBe("1 h 02 min 05 s");
  });
  it("prints a dash for what is not a duration", () => {
    expect(formatDurationSeconds(-1)).toBe("—");
    expect(formatDurationSeconds(Number.NaN)).toBe("—");
  });
  it("is what the job header's launch-to-end duration prints", () => {
    expect(formatDuration("2026-11-30T10:00:00.000Z", "2026-11-30T10:00:01.600Z")).toBe("1.60 s");
    expect(formatDuration("2026-11-30T10:00:00.000Z", "2026-11-30T10:01:05.000Z")).toBe("1 min 05 s");
  });
});

describe("formatDurationDelta", () => {
  it("signs the shared format", () => {
    expect(formatDurationDelta(0.4)).toBe("+0.40 s");
    expect(formatDurationDelta(-65)).toBe("−1 min 05 s");
    expect(formatDurationDelta(0.001)).toBe("±0.00 s");
  });
});

describe("formatElapsedFloor: a recap's whole-second elapsed_sec", () => {
  it("says the interval the floor stands for, not a false 0s", () => {
    expect(formatElapsedFloor(0)).toBe("< 1 s");
    expect(formatElapsedFloor(3)).toBe("3–4 s");
    expect(formatElapsedFloor(65)).toBe("1 min 05 s");
  });
});

describe("formatElapsedFloorDelta", () => {
  it("stays in whole seconds", () => {
    expect(formatElapsedFloorDelta(0)).toBe("±0 s");
    expect(formatElapsedFloorDelta(1)).toBe("+1 s");
    expect(formatElapsedFloorDelta(-65)).toBe("−1 min 05 s");
  });
});

describe("durationBarHeights: trend bars from zero", () => {
  it("keeps the ratio of the durations: 4.62 s and 4.63 s look alike", () => {
    const [a, b] = durationBarHeights([4.62, 4.63]);
    expect(b).toBe(100);
    expect(a).toBeCloseTo((4.62 / 4.63) * 100, 6);
  });
  it("keeps null as null and equal runs at full height", () => {
    expect(durationBarHeights([null, 2, 2])).toEqual([null, 100, 100]);
    expect(durationBarHeights([0, 0])).toEqual([100, 100]);
  });
  it("is proportional to the longest, a short run kept as a sliver", () => {
    expect(durationBarHeights([10, 100])).toEqual([10, 100]);
    expect(durationBarHeights([1, 1000])).toEqual([4, 100]);
  });
});
