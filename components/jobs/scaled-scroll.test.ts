import { describe, expect, it } from "vitest";
import {
  MAX_LAYOUT_PX,
  contentTop,
  needsScaling,
  rowInView,
  rowsInView,
  scaledGeometry,
  scrollRatio,
  scrollTopAfter,
  scrollTopFor,
  scrollTopToCenter,
} from "./scaled-scroll";

const ROW = 16;
const PAD = 8;
const VIEW = 576;

describe("the geometry of a pane past the browser's height cap", () => {
  it("leaves a pane that fits as it is: one pixel of scrolling is one pixel of content", () => {
    const fits = scaledGeometry(200_000, ROW, PAD);
    expect(needsScaling(200_000, ROW, PAD)).toBe(false);
    expect(fits.layoutPx).toBe(fits.contentPx);
    expect(scrollRatio(fits, VIEW)).toBe(1);
    expect(contentTop(fits, 12_345, VIEW)).toBe(12_345);
    expect(scrollTopFor(fits, 12_345, VIEW)).toBe(12_345);
  });

  it("compresses past the cap: a million lines of 16 px and more", () => {
    // 999,999 rows: 15,999,984 + 16 = 16,000,000 px, exactly the cap.
    expect(needsScaling(999_999, ROW, PAD)).toBe(false);
    expect(needsScaling(1_000_000, ROW, PAD)).toBe(true);
    const huge = scaledGeometry(10_000_000, ROW, PAD);
    expect(huge.layoutPx).toBe(MAX_LAYOUT_PX);
    expect(huge.contentPx).toBe(160_000_016);
    expect(scrollRatio(huge, VIEW)).toBeCloseTo((160_000_016 - VIEW) / (MAX_LAYOUT_PX - VIEW), 9);
  });

  it("maps the top of the scroll range to line 1 and its bottom to the last line, exactly", () => {
    const huge = scaledGeometry(10_000_000, ROW, PAD);
    const top = rowsInView(huge, 0, VIEW, 0);
    expect(top.startIndex).toBe(0);
    expect(top.rows[0]).toEqual({ index: 0, start: PAD });

    const bottom = rowsInView(huge, MAX_LAYOUT_PX - VIEW, VIEW, 0);
    expect(bottom.endIndex).toBe(9_999_999);
    const last = bottom.rows.at(-1)!;
    expect(last.index).toBe(9_999_999);
    // The last row ends the padding above the viewport's bottom, as in an uncompressed pane.
    expect(last.start + ROW).toBeCloseTo(VIEW - PAD, 6);
    expect(rowInView(huge, 9_999_999, MAX_LAYOUT_PX - VIEW, VIEW)).toBe(true);
  });

  it("draws the rows in view one row apart, without overlap, wherever the pane is scrolled", () => {
    const huge = scaledGeometry(10_000_000, ROW, PAD);
    for (const scrollTop of [0, 1, 777, 5_000_000.5, 9_999_999, MAX_LAYOUT_PX - VIEW - 1, MAX_LAYOUT_PX - VIEW]) {
      const view = rowsInView(huge, scrollTop, VIEW, 3);
      expect(view.rows.length).toBeGreaterThanOrEqual(VIEW / ROW);
      for (let i = 1; i < view.rows.length; i++) {
        expect(view.rows[i]!.index).toBe(view.rows[i - 1]!.index + 1);
        expect(view.rows[i]!.start - view.rows[i - 1]!.start).toBeCloseTo(ROW, 6);
      }
      // The first row in view covers the viewport's top, the last its bottom.
      const first = view.rows.find((row) => row.index === view.startIndex)!;
      const lastInView = view.rows.find((row) => row.index === view.endIndex)!;
      expect(first.start).toBeLessThanOrEqual(PAD);
      expect(first.start + ROW).toBeGreaterThan(0);
      expect(lastInView.start).toBeLessThan(VIEW);
      if (view.endIndex < huge.count - 1) expect(lastInView.start + ROW).toBeGreaterThanOrEqual(VIEW - 1e-6);
    }
  });

  it("centres a line asked for, at any line of ten million, and the line is then in view", () => {
    const huge = scaledGeometry(10_000_000, ROW, PAD);
    for (const index of [0, 1, 2_097_116, 2_097_151, 5_000_000, 9_999_998, 9_999_999]) {
      // The browser keeps whole pixels of scrolling (at a zoom of 1): the line must stay in view after rounding.
      const scrollTop = Math.round(scrollTopToCenter(huge, index, VIEW));
      expect(rowInView(huge, index, scrollTop, VIEW), `line ${index + 1}`).toBe(true);
      const view = rowsInView(huge, scrollTop, VIEW, 0);
      expect(view.startIndex).toBeLessThanOrEqual(index);
      expect(view.endIndex).toBeGreaterThanOrEqual(index);
    }
  });

  it("moves the content by a wheel's or a key's usual distance, not the compressed one", () => {
    const huge = scaledGeometry(10_000_000, ROW, PAD);
    const from = 4_000_000;
    const to = scrollTopAfter(huge, from, 3 * ROW, VIEW);
    expect(contentTop(huge, to, VIEW) - contentTop(huge, from, VIEW)).toBeCloseTo(3 * ROW, 6);
    // Clamped at the ends.
    expect(scrollTopAfter(huge, 0, -100, VIEW)).toBe(0);
    expect(scrollTopAfter(huge, MAX_LAYOUT_PX - VIEW, 100, VIEW)).toBeCloseTo(MAX_LAYOUT_PX - VIEW, 6);
  });

  it("has nothing to draw for no rows or no viewport", () => {
    expect(rowsInView(scaledGeometry(0, ROW, PAD), 0, VIEW, 5)).toEqual({ startIndex: -1, endIndex: -1, rows: [] });
    expect(rowsInView(scaledGeometry(5_000_000, ROW, PAD), 0, 0, 5).rows).toEqual([]);
  });
});
