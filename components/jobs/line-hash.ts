/**
 * `#L1234` in the job page's address names a line of its output: shareable, and set without
 * adding a history entry each time a line number is clicked (replaceState). Whatever sets it
 * (a click on a line number, the "Go to line" box, a task in the timeline) calls goToLine;
 * the output pane listens with subscribeLineHash and scrolls there. A hash typed into the
 * address bar, or reached with back/forward, arrives as a hashchange and is handled alike.
 */

const LINE_HASH = /^#L([1-9][0-9]{0,9})$/;

/** The line a hash names (`#L12` → 12), or null. */
export function parseLineHash(hash: string): number | null {
  const match = LINE_HASH.exec(hash.trim());
  if (!match) return null;
  const n = Number(match[1]);
  return Number.isSafeInteger(n) ? n : null;
}

export function lineHash(n: number): string {
  return `#L${n}`;
}

/** The line the page's address names now (null on the server). */
export function readLineHash(): number | null {
  return typeof window === "undefined" ? null : parseLineHash(window.location.hash);
}

type Listener = (line: number) => void;
const listeners = new Set<Listener>();

/**
 * Names line n in the address (replacing the entry) and tells the pane to show it. The state
 * object is kept as it is: Next's router keeps its own there.
 */
export function goToLine(n: number): void {
  if (!Number.isSafeInteger(n) || n < 1) return;
  const url = new URL(window.location.href);
  url.hash = lineHash(n);
  window.history.replaceState(window.history.state, "", url);
  for (const listener of listeners) listener(n);
}

/** Calls `listener` for goToLine and for a `#L` hash the browser navigates to. */
export function subscribeLineHash(listener: Listener): () => void {
  const onHashChange = () => {
    const line = readLineHash();
    if (line !== null) listener(line);
  };
  listeners.add(listener);
  window.addEventListener("hashchange", onHashChange);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("hashchange", onHashChange);
  };
}

/**
 * For an `<a href="#L12">`: a plain click goes to the line without a history entry; a click
 * with a modifier (new tab, copy link) is left to the browser.
 */
export function onLineLinkClick(n: number) {
  return (event: { preventDefault(): void; button: number; metaKey: boolean; ctrlKey: boolean; shiftKey: boolean; altKey: boolean }) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    goToLine(n);
  };
}
