"use client";

import { useLayoutEffect, useMemo, useState, type RefObject } from "react";
import { rowInView, rowsInView, scaledGeometry, scrollTopAfter, scrollTopToCenter, type ScaledGeometry } from "./scaled-scroll";

/** What an arrow key scrolls in Chromium and Firefox. */
const ARROW_STEP_PX = 40;
/** What Page Down and Space scroll: most of the viewport, as browsers do. */
const PAGE_FRACTION = 0.875;
/** A wheel turn measured in lines (deltaMode 1, Firefox with some mice): pixels per line. */
const WHEEL_LINE_PX = 16;

export interface ScaledItem {
  index: number;
  key: number;
  /** The row's top relative to the viewport's top. */
  start: number;
}

/**
 * The scroll position of a compressed pane, read and written: the element and the geometry
 * are set by the hook at each render's layout, and the methods read them when called (from
 * events and effects), so they are stable for the life of the pane.
 */
export class ScaledScroller {
  private element: HTMLElement | null = null;
  constructor(private geometry: ScaledGeometry) {}

  /** The pane's scrolling element and its geometry now. */
  attach(element: HTMLElement | null, geometry: ScaledGeometry): void {
    this.element = element;
    this.geometry = geometry;
  }

  /** The rows in view now (0-based), or null with none. */
  range(): { startIndex: number; endIndex: number } | null {
    const el = this.element;
    if (!el) return null;
    const view = rowsInView(this.geometry, el.scrollTop, el.clientHeight, 0);
    return view.startIndex < 0 ? null : { startIndex: view.startIndex, endIndex: view.endIndex };
  }

  /** Scrolls so that row `index` (0-based) is in the middle of the viewport. */
  scrollToIndex(index: number): void {
    const el = this.element;
    if (el) el.scrollTop = scrollTopToCenter(this.geometry, index, el.clientHeight);
  }

  /** Whether row `index` (0-based) is wholly in view now. */
  inView(index: number): boolean {
    const el = this.element;
    return el !== null && rowInView(this.geometry, index, el.scrollTop, el.clientHeight);
  }

  /** Moves the content by `delta` px as an ordinary pane would (not `ratio` times that). */
  moveBy(delta: number): void {
    const el = this.element;
    if (!el) return;
    const from = el.scrollTop;
    let to = scrollTopAfter(this.geometry, from, delta, el.clientHeight);
    // Under a pixel of scroll bar, which the browser would round away: one pixel.
    if (delta !== 0 && Math.round(to) === Math.round(from)) to = from + Math.sign(delta);
    el.scrollTop = to;
  }
}

export interface ScaledRows {
  /** The rows to draw (in view, and `overscan` on each side). */
  items: ScaledItem[];
  /** The spacer's height in the scrolling element. */
  layoutPx: number;
  /** Reads and moves the scroll position (stable). */
  scroller: ScaledScroller;
}

/**
 * The rows of a pane past the browser's height cap (scaled-scroll.ts), for `count` rows of
 * `rowPx`; `count` 0 when the pane is not compressed (then nothing is listened to). `items`
 * follow the scroll position and the viewport's size; wheel and arrow, page and space keys
 * move the content by their usual distance.
 */
export function useScaledRows({
  count,
  rowPx,
  paddingPx,
  overscan,
  scroller: element,
}: {
  count: number;
  rowPx: number;
  paddingPx: number;
  overscan: number;
  scroller: RefObject<HTMLElement | null>;
}): ScaledRows {
  const geometry = useMemo(() => scaledGeometry(count, rowPx, paddingPx), [count, rowPx, paddingPx]);
  const [scroller] = useState(() => new ScaledScroller(geometry));
  const [position, setPosition] = useState({ top: 0, height: 0 });
  const enabled = count > 0;

  useLayoutEffect(() => {
    scroller.attach(element.current, geometry);
  });

  useLayoutEffect(() => {
    const el = element.current;
    if (!enabled || !el) return;
    const read = () =>
      setPosition((now) =>
        now.top === el.scrollTop && now.height === el.clientHeight ? now : { top: el.scrollTop, height: el.clientHeight },
      );
    read();
    const onWheel = (event: WheelEvent) => {
      if (event.ctrlKey || event.deltaY === 0 || Math.abs(event.deltaX) > Math.abs(event.deltaY)) return;
      event.preventDefault();
      const unit =
        event.deltaMode === WheelEvent.DOM_DELTA_LINE ? WHEEL_LINE_PX : event.deltaMode === WheelEvent.DOM_DELTA_PAGE ? el.clientHeight : 1;
      if (event.deltaX !== 0) el.scrollLeft += event.deltaX * unit;
      scroller.moveBy(event.deltaY * unit);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.target !== el || event.altKey || event.ctrlKey || event.metaKey) return;
      const page = el.clientHeight * PAGE_FRACTION;
      const delta =
        event.key === "ArrowDown"
          ? ARROW_STEP_PX
          : event.key === "ArrowUp"
            ? -ARROW_STEP_PX
            : event.key === "PageDown" || (event.key === " " && !event.shiftKey)
              ? page
              : event.key === "PageUp" || (event.key === " " && event.shiftKey)
                ? -page
                : 0;
      if (delta === 0) return;
      event.preventDefault();
      scroller.moveBy(delta);
    };
    const resize = new ResizeObserver(read);
    resize.observe(el);
    el.addEventListener("scroll", read, { passive: true });
    el.addEventListener("wheel", onWheel, { passive: false });
    el.addEventListener("keydown", onKey);
    return () => {
      resize.disconnect();
      el.removeEventListener("scroll", read);
      el.removeEventListener("wheel", onWheel);
      el.removeEventListener("keydown", onKey);
    };
  }, [enabled, element, scroller]);

  const items = useMemo(
    () => rowsInView(geometry, position.top, position.height, overscan).rows.map((row) => ({ ...row, key: row.index })),
    [geometry, position, overscan],
  );

  return { items, layoutPx: geometry.layoutPx, scroller };
}
