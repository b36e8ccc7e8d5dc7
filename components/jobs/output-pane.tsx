"use client";

import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type { JobStatus } from "@/components/api/types";
import type { LiveConnection } from "@/components/hooks/use-job-output";
import { cx } from "@/components/ui/cx";
import { PLAIN, parseAnsi, renderSegments, stripAnsi, type AnsiStyle } from "./ansi";
import type { OutputBlock } from "./output-blocks";

/** Within this many pixels of the bottom the pane counts as "at the bottom" and follows. */
const STICK_THRESHOLD_PX = 24;

const STREAM_CLASS: Record<string, string> = {
  stdout: "text-zinc-200",
  stderr: "text-rose-300",
  rte: "text-zinc-500 italic",
};

/*
 * The line number is drawn from data-line by CSS (::before), not written into the DOM text:
 * selecting and copying output then copies the output only.
 */
const LINE_CLASS =
  "flex min-h-[1.25rem] hover:bg-white/[0.04] before:w-14 before:shrink-0 before:pr-4 before:text-right " +
  "before:text-zinc-600 before:select-none before:content-[attr(data-line)]";

const OutputBlockLines = memo(function OutputBlockLines({ block, firstLine }: { block: OutputBlock; firstLine: number }) {
  // Colour carries over line ends within one chunk, as it would on a terminal.
  const parsedLines = useMemo(() => {
    const lines: ReturnType<typeof parseAnsi>[] = [];
    let style: AnsiStyle = PLAIN;
    for (const line of block.lines) {
      const parsed = parseAnsi(line, style);
      lines.push(parsed);
      style = parsed.style;
    }
    return lines;
  }, [block.lines]);
  const streamClass = STREAM_CLASS[block.stream] ?? STREAM_CLASS.stdout;
  return (
    <>
      {parsedLines.map((parsed, index) => {
        return (
          <div key={index} className={LINE_CLASS} data-line={firstLine + index} data-stream={block.stream}>
            <span className={cx("min-w-0 flex-1 pr-4 whitespace-pre-wrap break-words", streamClass)}>
              {block.stream === "rte" && <span className="mr-2 text-zinc-600 not-italic select-none">[runner]</span>}
              {renderSegments(parsed.segments)}
            </span>
          </div>
        );
      })}
    </>
  );
});

function ConnectionIndicator({ connection, final }: { connection: LiveConnection; final: boolean }) {
  const [dot, label] = final
    ? ["bg-zinc-500", "Finished"]
    : connection === "live"
      ? ["bg-green-400 animate-pulse", "Live"]
      : connection === "offline"
        ? ["bg-amber-400", "Reconnecting… (polling)"]
        : ["bg-zinc-500 animate-pulse", "Connecting…"];
  return (
    <span
      className="flex items-center gap-1.5 text-xs text-zinc-400"
      data-testid="live-indicator"
      data-connection={final ? "finished" : connection}
    >
      <span aria-hidden="true" className={cx("size-1.5 rounded-full", dot)} />
      {label}
    </span>
  );
}

function ToolbarButton({ onClick, children, pressed }: { onClick: () => void; children: ReactNode; pressed?: boolean }) {
  return (
    <button
      type="button"
      onClick={onClick}
      aria-pressed={pressed}
      className={cx(
        "rounded px-2 py-0.5 text-xs transition-colors",
        pressed ? "bg-zinc-700 text-zinc-100" : "text-zinc-400 hover:bg-zinc-800 hover:text-zinc-100",
      )}
    >
      {children}
    </button>
  );
}

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

export function OutputPane({
  jobId,
  blocks,
  loaded,
  error,
  connection,
  status,
  final,
}: {
  jobId: number;
  blocks: OutputBlock[];
  loaded: boolean;
  error: unknown;
  connection: LiveConnection;
  status: JobStatus | undefined;
  final: boolean;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  // Whether to keep the newest line in view. Turned off when the user scrolls up to read,
  // back on when they scroll to the bottom again.
  const stick = useRef(true);
  const [following, setFollowing] = useState(true);
  const [wrap, setWrap] = useState(true);

  // Line numbers run on across blocks: block i starts after every line of the blocks before it.
  const { firstLines, lineCount } = useMemo(() => {
    const starts: number[] = [];
    let next = 1;
    for (const block of blocks) {
      starts.push(next);
      next += block.lines.length;
    }
    return { firstLines: starts, lineCount: next - 1 };
  }, [blocks]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [blocks, wrap]);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_THRESHOLD_PX;
    stick.current = atBottom;
    setFollowing(atBottom);
  }, []);

  const jumpToBottom = () => {
    const el = scroller.current;
    if (!el) return;
    stick.current = true;
    setFollowing(true);
    el.scrollTop = el.scrollHeight;
  };

  const download = () => {
    const text = blocks.map((block) => block.lines.map(stripAnsi).join("\n")).join("\n") + "\n";
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = `job-${jobId}.log`;
    link.click();
    URL.revokeObjectURL(url);
  };

  return (
    <section className="overflow-hidden rounded-lg border border-zinc-800 bg-zinc-950 shadow-sm" aria-label="Job output">
      <header className="flex items-center gap-3 border-b border-zinc-800 bg-zinc-900 px-3 py-1.5">
        <h2 className="text-xs font-semibold tracking-wide text-zinc-300 uppercase">Output</h2>
        <span className="text-xs text-zinc-500 tabular-nums">
          {lineCount} {lineCount === 1 ? "line" : "lines"}
        </span>
        <ConnectionIndicator connection={connection} final={final} />
        <div className="ml-auto flex items-center gap-1">
          <ToolbarButton onClick={() => setWrap((w) => !w)} pressed={wrap}>
            Wrap
          </ToolbarButton>
          <ToolbarButton onClick={download}>Download</ToolbarButton>
        </div>
      </header>
      <div className="relative">
        <div
          ref={scroller}
          onScroll={onScroll}
          className={cx(
            "max-h-[28rem] min-h-[14rem] overflow-auto py-2 font-mono text-[12.5px] leading-5 text-zinc-200 lg:max-h-[36rem]",
            !wrap && "[&_span]:whitespace-pre [&_span]:break-normal",
          )}
          data-testid="job-output"
          data-lines={lineCount}
          role="log"
          aria-live="off"
          tabIndex={0}
        >
          {blocks.map((block, index) => (
            <OutputBlockLines key={block.seq} block={block} firstLine={firstLines[index]!} />
          ))}
          {lineCount === 0 && (
            <p className="px-4 py-2 text-zinc-500" data-testid="job-output-placeholder">
              {error ? "Could not load the output. It will be retried while the job runs." : placeholder(status, loaded)}
            </p>
          )}
          {!final && lineCount > 0 && (
            <div className={cx(LINE_CLASS, "text-zinc-600")} aria-hidden="true">
              <span className="animate-pulse">▍</span>
            </div>
          )}
        </div>
        {!following && lineCount > 0 && (
          <button
            type="button"
            onClick={jumpToBottom}
            className="absolute right-5 bottom-3 rounded-full bg-zinc-700/90 px-3 py-1 text-xs font-medium text-zinc-100 shadow-lg ring-1 ring-zinc-600 hover:bg-zinc-600"
          >
            ↓ Follow output
          </button>
        )}
      </div>
    </section>
  );
}
