/**
 * The geometry of an output pane taller than a browser lets an element be.
 *
 * Browsers cap an element's height: Chromium at 2^25 px (33,554,432; 2,097,152 rows of 16 px),
 * Firefox at about 17,900,000 px. Past the cap the pane's content is silently cut: a job of
 * five million lines ended, on the page, near line 2,097,000, its rows drawn over each other.
 * So past MAX_LAYOUT_PX the pane is laid out compressed, as big log and table viewers do
 * (react-virtualized, SlickGrid): the scrolling element holds a spacer MAX_LAYOUT_PX high, and
 * its scroll position maps linearly onto the content's:
 *
 *   contentTop = scrollTop × (contentPx − viewport) / (layoutPx − viewport)
 *
 * so the top of the scroll range is line 1 and its bottom the last line, exactly. The rows in
 * view are then computed from contentTop (rows are one fixed height: wrapping, which needs
 * each row measured, is off in this mode) and drawn relative to the viewport.
 *
 * Dragging the scroll bar moves through the job at the compressed rate (one pixel of bar is
 * `ratio` pixels of content), as it must to reach every line; the wheel and the keys move
 * the content by their usual distance (`scrollTopAfter`), not `ratio` times it.
 */

/**
 * The tallest layout used: under Firefox's cap (about 17.9 million px) and far under
 * Chromium's, with room for the pane's padding and the live cursor row. Content up to this
 * height is laid out as it is, past it compressed.
 */
export const MAX_LAYOUT_PX = 16_000_000;

export interface ScaledGeometry {
  /** The height of every row. */
  rowPx: number;
  /** Space above the first row and below the last. */
  paddingPx: number;
  /** Rows. */
  count: number;
  /** The content's true height: padding, rows, padding. */
  contentPx: number;
  /** The spacer's height in the scrolling element: the content's, at most MAX_LAYOUT_PX. */
  layoutPx: number;
}

export function scaledGeometry(count: number, rowPx: number, paddingPx: number, maxLayoutPx = MAX_LAYOUT_PX): ScaledGeometry {
  const contentPx = 2 * paddingPx + Math.max(0, count) * rowPx;
  return { rowPx, paddingPx, count: Math.max(0, count), contentPx, layoutPx: Math.min(contentPx, maxLayoutPx) };
}

/** Whether rows this many, this high, are past the layout cap (the pane must be compressed). */
export function needsScaling(count: number, rowPx: number, paddingPx: number, maxLayoutPx = MAX_LAYOUT_PX): boolean {
  return 2 * paddingPx + count * rowPx > maxLayoutPx;
}

/** Content pixels per layout pixel of scrolling (1 when not compressed, or the viewport holds it all). */
export function scrollRatio(geometry: ScaledGeometry, viewportPx: number): number {
  const layoutRange = geometry.layoutPx - viewportPx;
  const contentRange = geometry.contentPx - viewportPx;
  if (layoutRange <= 0 || contentRange <= layoutRange) return 1;
  return contentRange / layoutRange;
}

/** The content offset at the viewport's top for a scroll position. */
export function contentTop(geometry: ScaledGeometry, scrollTop: number, viewportPx: number): number {
  const maxContent = Math.max(0, geometry.contentPx - viewportPx);
  return clamp(scrollTop * scrollRatio(geometry, viewportPx), 0, maxContent);
}

/** The scroll position that puts content offset `top` at the viewport's top (clamped to the range). */
export function scrollTopFor(geometry: ScaledGeometry, top: number, viewportPx: number): number {
  const maxContent = Math.max(0, geometry.contentPx - viewportPx);
  return clamp(top, 0, maxContent) / scrollRatio(geometry, viewportPx);
}

export interface ScaledRow {
  index: number;
  /** The row's top relative to the viewport's top (negative: above it). */
  start: number;
}

export interface ScaledView {
  /** The first and last row at least partly in view (-1 when there is none). */
  startIndex: number;
  endIndex: number;
  /** The rows to draw: those in view and `overscan` more on each side. */
  rows: ScaledRow[];
}

/** The rows in view at a scroll position. */
export function rowsInView(geometry: ScaledGeometry, scrollTop: number, viewportPx: number, overscan: number): ScaledView {
  const { rowPx, paddingPx, count } = geometry;
  if (count === 0 || viewportPx <= 0) return { startIndex: -1, endIndex: -1, rows: [] };
  const top = contentTop(geometry, scrollTop, viewportPx);
  const startIndex = clamp(Math.floor((top - paddingPx) / rowPx), 0, count - 1);
  const endIndex = clamp(Math.ceil((top + viewportPx - paddingPx) / rowPx) - 1, startIndex, count - 1);
  const first = Math.max(0, startIndex - overscan);
  const last = Math.min(count - 1, endIndex + overscan);
  const rows: ScaledRow[] = [];
  for (let index = first; index <= last; index++) rows.push({ index, start: paddingPx + index * rowPx - top });
  return { startIndex, endIndex, rows };
}

/** Whether row `index` is wholly in view at a scroll position. */
export function rowInView(geometry: ScaledGeometry, index: number, scrollTop: number, viewportPx: number): boolean {
  const start = geometry.paddingPx + index * geometry.rowPx - contentTop(geometry, scrollTop, viewportPx);
  return start >= 0 && start + geometry.rowPx <= viewportPx;
}

/** The scroll position that shows row `index` in the middle of the viewport (or as near as the ends allow). */
export function scrollTopToCenter(geometry: ScaledGeometry, index: number, viewportPx: number): number {
  const rowTop = geometry.paddingPx + clamp(index, 0, Math.max(0, geometry.count - 1)) * geometry.rowPx;
  return scrollTopFor(geometry, rowTop + geometry.rowPx / 2 - viewportPx / 2, viewportPx);
}

/**
 * The scroll position after moving the content by `deltaPx` (a wheel turn, an arrow key) from
 * the position `scrollTop`: the same distance of content as in an ordinary pane, whatever the
 * compression.
 */
export function scrollTopAfter(geometry: ScaledGeometry, scrollTop: number, deltaPx: number, viewportPx: number): number {
  return scrollTopFor(geometry, contentTop(geometry, scrollTop, viewportPx) + deltaPx, viewportPx);
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}
