"use client";

import { useCallback, useSyncExternalStore } from "react";

/** Values set in this tab, for when localStorage is unavailable (private mode, storage full). */
const memory = new Map<string, boolean>();
const listeners = new Set<() => void>();

function read(key: string, fallback: boolean): boolean {
  if (memory.has(key)) return memory.get(key)!;
  try {
    const stored = window.localStorage.getItem(key);
    return stored === null ? fallback : stored === "1";
  } catch {
    return fallback;
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Another tab changed it.
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

/** A yes/no preference remembered in localStorage (the fallback on the server and until set). */
export function useStoredFlag(key: string, fallback: boolean): [boolean, (value: boolean) => void] {
  const value = useSyncExternalStore(
    subscribe,
    () => read(key, fallback),
    () => fallback,
  );
  const set = useCallback(
    (next: boolean) => {
      memory.set(key, next);
      try {
        window.localStorage.setItem(key, next ? "1" : "0");
      } catch {
        // Kept in memory for this tab.
      }
      for (const listener of listeners) listener();
    },
    [key],
  );
  return [value, set];
}
