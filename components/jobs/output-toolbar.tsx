"use client";

import { memo, useId, useState, type ReactNode } from "react";
import type { OutputMarker } from "@/components/api/types";
import type { LiveConnection } from "@/components/hooks/use-job-lines";
import { SEARCH_LIMIT, SEARCH_MAX_CHARS, type useOutputSearch } from "@/components/hooks/use-output-search";
import { cx } from "@/components/ui/cx";
import { goToLine } from "./line-hash";
import { groupByPlay } from "./task-links";

const FIELD =
  "h-6 rounded border border-zinc-700 bg-zinc-950 px-1.5 text-xs text-zinc-100 placeholder:text-zinc-500 " +
  "focus:border-indigo-400 focus:outline-none focus-visible:ring-1 focus-visible:ring-indigo-400";

const TOOL =
  "rounded px-2 py-0.5 text-xs text-zinc-400 transition-colors hover:bg-zinc-800 hover:text-zinc-100 " +
  "focus-visible:outline-1 focus-visible:outline-indigo-400 disabled:cursor-not-allowed disabled:opacity-40";

export function ConnectionIndicator({ connection, final }: { connection: LiveConnection; final: boolean }) {
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

export function ToolbarButton({
  onClick,
  children,
  pressed,
  label,
  disabled,
}: {
  onClick: () => void;
  children: ReactNode;
  pressed?: boolean;
  label?: string;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      onClick={onClick}
      aria-pressed={pressed}
      aria-label={label}
      title={label}
      disabled={disabled}
      className={cx(TOOL, pressed && "bg-zinc-700 text-zinc-100")}
    >
      {children}
    </button>
  );
}

export function ToolbarLink({ href, children, label }: { href: string; children: ReactNode; label: string }) {
  return (
    <a href={href} download className={TOOL} aria-label={label} title={label}>
      {children}
    </a>
  );
}

/** "Go to line": Enter names the line in the address (#L…), which scrolls there and marks it (past the end: the last line). */
export function GoToLine({ total }: { total: number }) {
  const [value, setValue] = useState("");
  const id = useId();
  return (
    <form
      className="flex items-center gap-1"
      onSubmit={(event) => {
        event.preventDefault();
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1 || total === 0) return;
        goToLine(Math.min(n, total));
      }}
    >
      <label htmlFor={id} className="sr-only">
        Go to line
      </label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={1}
        value={value}
        onChange={(event) => setValue(event.target.value)}
        placeholder="Go to line"
        disabled={total === 0}
        className={cx(FIELD, "w-28 tabular-nums")}
        data-testid="output-goto-line"
      />
    </form>
  );
}

function markerLabel(marker: OutputMarker): string {
  switch (marker.kind) {
    case "play":
      return `PLAY ${marker.name || "(unnamed)"}`;
    case "handler":
      return `${marker.name} (handler)`;
    case "recap":
      return "PLAY RECAP";
    case "task":
      return marker.name;
  }
}

/** "Jump to task": the task index grouped by play; choosing one goes to its first line. */
export const TaskJump = memo(function TaskJump({ markers, final }: { markers: readonly OutputMarker[] | undefined; final: boolean }) {
  const id = useId();
  const groups = markers ? groupByPlay(markers) : [];
  return (
    <>
      <label htmlFor={id} className="sr-only">
        Jump to task
      </label>
      <select
        id={id}
        value=""
        onChange={(event) => {
          const line = Number(event.target.value);
          if (line >= 1) goToLine(line);
        }}
        disabled={!markers || markers.length === 0}
        className={cx(FIELD, "max-w-[16rem] min-w-0 pr-6")}
        data-testid="output-task-jump"
      >
        <option value="" disabled>
          {markers && markers.length === 0 ? (final ? "No tasks" : "No tasks yet") : "Jump to task…"}
        </option>
        {groups.map((group, g) => (
          <optgroup key={`${g}-${group.play}`} label={group.play === "" ? "—" : `Play: ${group.play}`}>
            {group.entries.map((marker) => (
              <option key={marker.line} value={marker.line}>
                {markerLabel(marker)}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </>
  );
});

/** The search box, its "k / N" and next/previous. */
export function SearchBox({ search }: { search: ReturnType<typeof useOutputSearch> }) {
  const id = useId();
  const { result, pending, error } = search;
  const count = result?.matches.length ?? 0;
  let status = "";
  if (pending) status = "Searching…";
  else if (error) status = error;
  else if (result && count === 0) status = "No matches";
  else if (result) status = `${result.index + 1} / ${count}${result.truncated ? "+" : ""}`;
  return (
    <div className="flex items-center gap-1" role="search">
      <label htmlFor={id} className="sr-only">
        Search the output
      </label>
      <input
        id={id}
        type="search"
        value={search.text}
        maxLength={SEARCH_MAX_CHARS}
        onChange={(event) => search.type(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            search.submit(event.shiftKey);
          } else if (event.key === "Escape" && search.text !== "") {
            event.preventDefault();
            search.clear();
          }
        }}
        placeholder="Search (Enter)"
        className={cx(FIELD, "w-40")}
        data-testid="output-search"
      />
      <span
        className={cx("min-w-[4.5rem] text-xs tabular-nums", error ? "text-amber-300" : "text-zinc-400")}
        aria-live="polite"
        data-testid="output-search-status"
        title={result?.truncated ? `Only the first ${SEARCH_LIMIT} matching lines are listed` : undefined}
      >
        {status}
      </span>
      {result?.truncated && (
        <span className="text-xs text-zinc-500" data-testid="output-search-capped">
          (first {SEARCH_LIMIT.toLocaleString("en-GB")} lines only)
        </span>
      )}
      <ToolbarButton onClick={() => search.step(-1)} label="Previous match (Shift+Enter)" disabled={count === 0}>
        ↑
      </ToolbarButton>
      <ToolbarButton onClick={() => search.step(1)} label="Next match (Enter)" disabled={count === 0}>
        ↓
      </ToolbarButton>
    </div>
  );
}
