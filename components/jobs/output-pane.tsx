"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import {
  memo,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type CSSProperties,
  type ReactNode,
} from "react";
import type { JobStatus } from "@/components/api/types";
import type { JobOutputLines } from "@/components/hooks/use-job-lines";
import { useJobTasks } from "@/components/hooks/use-job-tasks";
import { useOutputSearch } from "@/components/hooks/use-output-search";
import { useStoredFlag } from "@/components/hooks/use-stored-flag";
import { cx } from "@/components/ui/cx";
import { parseAnsi, renderSegments, segmentClassName } from "./ansi";
import { highlightSegments, type HighlightedSegment } from "./highlight";
import type { CachedLine } from "./line-cache";
import { lineHash, onLineLinkClick, readLineHash, subscribeLineHash } from "./line-hash";
import { ConnectionIndicator, GoToLine, SearchBox, TaskJump, ToolbarButton, ToolbarLink } from "./output-toolbar";
import { needsScaling } from "./scaled-scroll";
import { useScaledRows } from "./use-scaled-rows";

/**
 * Rows are 16 px high when lines do not wrap. When they wrap, rows are measured as they are
 * rendered (only those; the others count 16 px). Past about a million lines (16,000,000 px,
 * under every browser's cap on an element's height) the pane is compressed
 * (scaled-scroll.ts): rows are 16 px, lines do not wrap.
 */
const ROW_PX = 16;
/** Space above the first row and below the last. */
const PAD_PX = 8;
/** Rows rendered above and below the visible ones. */
const OVERSCAN = 24;
/** A job this small renders every line (its whole output is in the DOM, e.g. for find-in-page). */
const SMALL_JOB_LINES = 300;
/** Within this many pixels of the bottom the pane counts as "at the bottom" and follows. */
const STICK_THRESHOLD_PX = 24;
const WRAP_KEY = "playform.output.wrap";

const STREAM_CLASS: Record<string, string> = {
  stdout: "text-zinc-200",
  stderr: "text-rose-300",
  rte: "text-zinc-500 italic",
};

/*
 * The line number is drawn from data-line by CSS (::before), not written into the DOM text:
 * selecting and copying output then copies the output only. The gutter's width follows the
 * number of digits (--gutter on the pane).
 */
const ROW_CLASS =
  "absolute top-0 left-0 flex min-w-full hover:bg-white/[0.04] " +
  "before:w-(--gutter) before:shrink-0 before:pr-3 before:text-right before:text-zinc-600 before:select-none before:content-[attr(data-line)]";

const MARK_CLASS = "rounded-[2px] bg-yellow-300/30 ring-1 ring-yellow-300/40";

function renderPieces(pieces: HighlightedSegment[]) {
  return pieces.map((piece, index) => {
    const className = segmentClassName(piece);
    if (piece.match) {
      return (
        <mark key={index} className={cx(className || "text-inherit", MARK_CLASS)}>
          {piece.text}
        </mark>
      );
    }
    return className === "" ? (
      piece.text
    ) : (
      <span key={index} className={className}>
        {piece.text}
      </span>
    );
  });
}

interface RowProps {
  index: number;
  start: number;
  wrap: boolean;
  measure: ((node: HTMLDivElement | null) => void) | undefined;
  /** The line marked by the address (#L) or the search match shown now. */
  marked: "hash" | "match" | null;
}

const OutputRow = memo(function OutputRow({
  line,
  query,
  index,
  start,
  wrap,
  measure,
  marked,
}: RowProps & { line: CachedLine; query: string }) {
  // Colour carries over line ends (line.start), as it would on a terminal.
  const segments = useMemo(() => parseAnsi(line.text, line.start).segments, [line]);
  const content = query === "" ? renderSegments(segments) : renderPieces(highlightSegments(segments, query));
  return (
    <div
      ref={measure}
      data-index={index}
      data-line={line.n}
      data-stream={line.stream}
      data-marked={marked ?? undefined}
      className={cx(
        ROW_CLASS,
        wrap ? "w-full" : "h-4",
        marked === "hash" && "bg-amber-300/15 ring-1 ring-amber-300/30 ring-inset",
        marked === "match" && "bg-indigo-400/20",
      )}
      style={{ transform: `translateY(${start}px)` }}
    >
      <a
        href={lineHash(line.n)}
        onClick={onLineLinkClick(line.n)}
        tabIndex={-1}
        aria-label={`Link to line ${line.n}`}
        className="absolute inset-y-0 left-0 w-(--gutter) cursor-pointer"
      />
      <span
        className={cx(
          "min-w-0 flex-1 pr-4",
          wrap ? "break-words whitespace-pre-wrap" : "whitespace-pre",
          STREAM_CLASS[line.stream] ?? STREAM_CLASS.stdout,
        )}
      >
        {line.stream === "rte" && <span className="mr-2 text-zinc-600 not-italic select-none">[runner]</span>}
        {content}
      </span>
    </div>
  );
});

/** A line not read yet: its number and a faint bar. */
const PlaceholderRow = memo(function PlaceholderRow({ n, index, start, wrap, measure }: RowProps & { n: number }) {
  return (
    <div
      ref={measure}
      data-index={index}
      data-line={n}
      data-placeholder=""
      aria-hidden="true"
      className={cx(ROW_CLASS, "h-4 items-center", wrap && "w-full")}
      style={{ transform: `translateY(${start}px)` }}
    >
      <span className="h-1.5 rounded-full bg-zinc-800/70" style={{ width: `${12 + ((n * 37) % 45)}%` }} />
    </div>
  );
});

function placeholder(status: JobStatus | undefined, loaded: boolean): string {
  if (!loaded) return "Loading output…";
  switch (status) {
    case "approval":
      return "Waiting for approval. Nothing runs before it is granted.";
    case "queued":
      return "Queued. Waiting for a runner to pick the job up…";
    case "running":
      return "Running. Waiting for the first output…";
    default:
      return "This job produced no output.";
  }
}

/**
 * Where rows are drawn. In a compressed pane (scaled-scroll.ts) their positions are relative
 * to the viewport: a box at its top, kept there by `sticky` while the spacer scrolls under it.
 */
function RowBox({ huge, children }: { huge: boolean; children: ReactNode }) {
  if (!huge) return children;
  return (
    <div className="sticky top-0 h-0" data-scaled="">
      {children}
    </div>
  );
}

function subscribeHash(onChange: () => void) {
  return subscribeLineHash(() => onChange());
}

/**
 * The output of a job, virtualised: only the rows in view (and a few around them) are in
 * the DOM, whatever the size of the job; a line not read yet is a placeholder with its
 * number. The pane follows the end of a running job while it is scrolled to the bottom;
 * scrolling up stops that and counts the lines that arrive meanwhile. Lines are addressed
 * by `#L<n>` (a click on a line number, "Go to line", "Jump to task", the timeline's task
 * names), and searched on the server.
 */
export function OutputPane({
  jobId,
  output,
  status,
  final,
}: {
  jobId: number;
  output: JobOutputLines;
  status: JobStatus | undefined;
  final: boolean;
}) {
  const { total, loaded, error, connection, line } = output;
  const done = final || output.final;
  const scroller = useRef<HTMLDivElement>(null);
  const section = useRef<HTMLElement>(null);
  const [wrapChosen, setWrap] = useStoredFlag(WRAP_KEY, true);
  /** Past the browser's height cap: laid out compressed, rows of one height (no wrapping). */
  const huge = needsScaling(total, ROW_PX, PAD_PX);
  const hugeRef = useRef(huge);
  const wrap = wrapChosen && !huge;

  // Follow the end while the job runs, unless the page was opened on a line.
  const [following, setFollowing] = useState(() => !final && readLineHash() === null);
  // The line count when following stopped: what came after is "new". Opened on a line, the
  // count starts from the first line count known.
  const [seenTotal, setSeenTotal] = useState<number | null>(() => (following || total === 0 ? null : total));
  if (!following && seenTotal === null && total > 0) setSeenTotal(total);
  const followingRef = useRef(following);
  const totalRef = useRef(total);
  const doneRef = useRef(done);
  /** A line asked for (#L) that is not there yet (a live job that has not written it, or the count not known). */
  const pendingJump = useRef<number | null>(null);

  const hashLine = useSyncExternalStore(subscribeHash, readLineHash, () => null);
  const tasks = useJobTasks(jobId, { lines: total, final: done });

  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer's functions are read in this render only, never memoised
  const virtualizer = useVirtualizer({
    count: huge ? 0 : total,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_PX,
    overscan: total <= SMALL_JOB_LINES ? SMALL_JOB_LINES : OVERSCAN,
    paddingStart: PAD_PX,
    paddingEnd: PAD_PX,
    // Scrolled to the very end, a last row that turns out taller (a wrapped line) keeps the end in view.
    anchorTo: "end",
  });
  const scaled = useScaledRows({ count: huge ? total : 0, rowPx: ROW_PX, paddingPx: PAD_PX, overscan: OVERSCAN, scroller });
  const totalSize = huge ? scaled.layoutPx : virtualizer.getTotalSize();

  /** Whether line n is fully in view. */
  const inView = useCallback(
    (n: number) => {
      if (hugeRef.current) return scaled.scroller.inView(n - 1);
      const el = scroller.current;
      const item = virtualizer.measurementsCache[n - 1];
      if (!el || !item) return false;
      return item.start >= el.scrollTop && item.end <= el.scrollTop + el.clientHeight;
    },
    [virtualizer, scaled.scroller],
  );

  const stopFollowing = useCallback(() => {
    if (!followingRef.current) return;
    followingRef.current = false;
    setFollowing(false);
    setSeenTotal(totalRef.current);
  }, []);

  const follow = useCallback(() => {
    followingRef.current = true;
    setFollowing(true);
    pendingJump.current = null;
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, []);

  /** Scrolls to line n if it is not in view already (centred). */
  const show = useCallback(
    (n: number) => {
      const count = totalRef.current;
      if (count === 0) return false;
      const target = Math.min(Math.max(1, n), count);
      if (!inView(target)) {
        if (hugeRef.current) scaled.scroller.scrollToIndex(target - 1);
        else virtualizer.scrollToIndex(target - 1, { align: "center" });
      }
      return n <= count;
    },
    [inView, virtualizer, scaled.scroller],
  );

  const applyPendingJump = useCallback(() => {
    const n = pendingJump.current;
    if (n === null) return;
    if (show(n) || (doneRef.current && totalRef.current > 0)) pendingJump.current = null;
  }, [show]);

  /** Go to line n: stop following, scroll there, and bring the pane into view (the timeline is far below it). */
  const jump = useCallback(
    (n: number) => {
      stopFollowing();
      pendingJump.current = n;
      applyPendingJump();
      const box = section.current?.getBoundingClientRect();
      if (box && (box.bottom < 0 || box.top > window.innerHeight)) section.current?.scrollIntoView({ block: "start" });
    },
    [applyPendingJump, stopFollowing],
  );

  const search = useOutputSearch(
    jobId,
    (n) => {
      stopFollowing();
      show(n);
    },
    () => ((hugeRef.current ? scaled.scroller.range() : virtualizer.range)?.startIndex ?? 0) + 1,
  );
  const searchedQuery = search.result?.q ?? "";
  const currentMatch = search.result && search.result.index >= 0 ? search.result.matches[search.result.index] : undefined;

  // #L in the address: at the start, and whenever it is set (goToLine, a link, the address bar).
  useEffect(() => {
    const initial = readLineHash();
    if (initial !== null) {
      pendingJump.current = initial;
      applyPendingJump();
    }
    return subscribeLineHash(jump);
  }, [jump, applyPendingJump]);

  // New lines (or rows that grew), or the end of the job: follow the end, or finish a jump that waited for its line.
  useLayoutEffect(() => {
    hugeRef.current = huge;
    totalRef.current = total;
    doneRef.current = done;
    followingRef.current = following;
    if (total === 0) return;
    if (following) {
      const el = scroller.current;
      if (el) el.scrollTop = el.scrollHeight;
    } else {
      applyPendingJump();
    }
  }, [total, totalSize, huge, done, following, wrap, applyPendingJump]);

  // Rows measure themselves only when wrapping; without, every row is ROW_PX again.
  useEffect(() => {
    if (!wrap) virtualizer.measure();
  }, [wrap, virtualizer]);

  // Tell the data what is in view: pages around it are read, far ones dropped.
  useEffect(() => {
    const range = huge ? scaled.scroller.range() : virtualizer.range;
    if (range && total > 0) output.setView(range.startIndex + 1, range.endIndex + 1);
  });

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_THRESHOLD_PX;
    if (!atBottom) stopFollowing();
    else if (!followingRef.current && !done && pendingJump.current === null) {
      followingRef.current = true;
      setFollowing(true);
    }
  };

  const items = huge ? scaled.items : virtualizer.getVirtualItems();
  const measure = wrap ? virtualizer.measureElement : undefined;
  const newLines = seenTotal === null ? 0 : Math.max(0, total - seenTotal);
  const style = { "--gutter": `calc(${Math.max(3, String(total).length)}ch + 1.5rem)` } as CSSProperties;

  return (
    <section ref={section} className="overflow-hidden rounded-lg border border-zinc-800 bg-zinc-950 shadow-sm" aria-label="Job output">
      <header className="flex flex-wrap items-center gap-x-3 gap-y-1.5 border-b border-zinc-800 bg-zinc-900 px-3 py-1.5">
        <h2 className="text-xs font-semibold tracking-wide text-zinc-300 uppercase">Output</h2>
        <span className="text-xs text-zinc-500 tabular-nums" data-testid="output-line-count">
          {total.toLocaleString("en-GB")} {total === 1 ? "line" : "lines"}
        </span>
        <ConnectionIndicator connection={connection} final={done} />
        <div className="ml-auto flex items-center gap-1">
          <ToolbarButton
            onClick={() => setWrap(!wrapChosen)}
            pressed={wrap}
            disabled={huge}
            label={huge ? "Long lines do not wrap in an output of over a million lines" : "Wrap long lines"}
          >
            Wrap
          </ToolbarButton>
          <ToolbarLink href={`/api/jobs/${jobId}/log`} label="Download the output with colour codes">
            Download
          </ToolbarLink>
          <ToolbarLink href={`/api/jobs/${jobId}/log?ansi=0`} label="Download the output as plain text">
            Plain text
          </ToolbarLink>
        </div>
        <div className="flex w-full flex-wrap items-center gap-2" role="toolbar" aria-label="Find in the output">
          <GoToLine total={total} />
          <TaskJump markers={tasks.data} final={done} />
          <div className="ml-auto">
            <SearchBox search={search} />
          </div>
        </div>
      </header>
      <div className="relative">
        <div
          ref={scroller}
          onScroll={onScroll}
          className="max-h-[28rem] min-h-[14rem] overflow-auto font-mono text-[12.5px] leading-4 text-zinc-200 [overflow-anchor:none] lg:max-h-[36rem]"
          style={style}
          data-testid="job-output"
          data-lines={total}
          role="log"
          aria-live="off"
          aria-label="Output lines"
          tabIndex={0}
        >
          {total > 0 && (
            <div className={cx("relative", wrap ? "w-full" : "w-max min-w-full")} style={{ height: totalSize }}>
              <RowBox huge={huge}>
                {items.map((item) => {
                  const n = item.index + 1;
                  const held = line(n);
                  const marked = n === currentMatch ? "match" : n === hashLine ? "hash" : null;
                  return held ? (
                    <OutputRow
                      key={item.key}
                      line={held}
                      query={searchedQuery}
                      index={item.index}
                      start={item.start}
                      wrap={wrap}
                      measure={measure}
                      marked={marked}
                    />
                  ) : (
                    <PlaceholderRow
                      key={item.key}
                      n={n}
                      index={item.index}
                      start={item.start}
                      wrap={wrap}
                      measure={measure}
                      marked={marked}
                    />
                  );
                })}
              </RowBox>
            </div>
          )}
          {total === 0 && (
            <p className="px-4 py-2 text-zinc-500" data-testid="job-output-placeholder">
              {error ? "Could not load the output. It will be retried while the job runs." : placeholder(status, loaded)}
            </p>
          )}
          {!done && total > 0 && (
            <div className="flex h-4 text-zinc-600 before:w-(--gutter) before:shrink-0" aria-hidden="true">
              <span className="animate-pulse">▍</span>
            </div>
          )}
        </div>
        {!following && !done && total > 0 && (
          <button
            type="button"
            onClick={follow}
            className="absolute right-5 bottom-3 rounded-full bg-zinc-700/90 px-3 py-1 text-xs font-medium text-zinc-100 shadow-lg ring-1 ring-zinc-600 hover:bg-zinc-600 focus-visible:outline-2 focus-visible:outline-indigo-400"
            data-testid="output-new-lines"
          >
            {newLines > 0 ? `${newLines.toLocaleString("en-GB")} new ${newLines === 1 ? "line" : "lines"} ↓` : "Follow output ↓"}
          </button>
        )}
      </div>
    </section>
  );
}
