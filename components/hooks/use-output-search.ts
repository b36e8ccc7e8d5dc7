"use client";

import { useRef, useState } from "react";
import { apiFetch, errorMessage } from "@/components/api/client";
import type { OutputSearch } from "@/components/api/types";

/** The server's limits (docs/api.md, search). */
export const SEARCH_MAX_CHARS = 200;
export const SEARCH_LIMIT = 1000;

export interface SearchResult {
  /** The query the matches are for (the highlight uses it, not what is being typed). */
  q: string;
  matches: number[];
  truncated: boolean;
  /** The match shown now (0-based); -1 when there is none. */
  index: number;
}

/**
 * Search in a job's output (GET /api/jobs/ID/search): Enter runs the query, Enter again (or
 * next/previous) steps through the matches, Shift+Enter backwards. `show` scrolls the pane to
 * a match; `from` says where the view is, so the first match shown is the first one at or
 * after it. Typing a new query drops the old results at once.
 */
export function useOutputSearch(jobId: number, show: (line: number) => void, from: () => number) {
  const [text, setText] = useState("");
  const [result, setResult] = useState<SearchResult | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const running = useRef<AbortController | null>(null);

  const cancel = () => {
    running.current?.abort();
    running.current = null;
    setPending(false);
  };

  const type = (value: string) => {
    setText(value);
    if (result?.q !== value) {
      cancel();
      setResult(null);
      setError(null);
    }
  };

  const run = async (q: string) => {
    cancel();
    setResult(null);
    setError(null);
    if (q.trim() === "") return;
    if (q.length > SEARCH_MAX_CHARS) {
      setError(`At most ${SEARCH_MAX_CHARS} characters.`);
      return;
    }
    const controller = new AbortController();
    running.current = controller;
    setPending(true);
    try {
      const found = await apiFetch<OutputSearch>(`/api/jobs/${jobId}/search?q=${encodeURIComponent(q)}&limit=${SEARCH_LIMIT}`, {
        signal: controller.signal,
      });
      if (controller.signal.aborted) return;
      const start = from();
      const after = found.matches.findIndex((n) => n >= start);
      const index = found.matches.length === 0 ? -1 : Math.max(0, after);
      setResult({ q, matches: found.matches, truncated: found.truncated, index });
      if (index >= 0) show(found.matches[index]!);
    } catch (cause) {
      if (controller.signal.aborted) return;
      setError(errorMessage(cause));
    } finally {
      if (running.current === controller) {
        running.current = null;
        setPending(false);
      }
    }
  };

  const step = (delta: number) => {
    if (!result || result.matches.length === 0) return;
    const count = result.matches.length;
    const index = (((result.index + delta) % count) + count) % count;
    setResult({ ...result, index });
    show(result.matches[index]!);
  };

  /** Enter in the box: a new query runs, the same one steps (Shift: backwards). */
  const submit = (backwards: boolean) => {
    if (result && result.q === text) step(backwards ? -1 : 1);
    else void run(text);
  };

  const clear = () => {
    cancel();
    setText("");
    setResult(null);
    setError(null);
  };

  return { text, type, result, pending, error, submit, step, clear };
}
