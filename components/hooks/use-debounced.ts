import { useEffect, useState } from "react";

/**
 * The value as it was `delayMs` after it last changed: a lookup keyed by what the user types
 * asks once they pause, not at every keystroke. Compared by JSON, so a new object with the
 * same content is no change.
 */
export function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  const key = JSON.stringify(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(JSON.parse(key) as T), delayMs);
    return () => clearTimeout(timer);
  }, [key, delayMs]);
  return settled;
}
