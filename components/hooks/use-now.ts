"use client";

import { useEffect, useState } from "react";

/** The current time, re-read every `intervalMs` while `active`; drives running-job timers. */
export function useNow(active: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    // The first tick comes after intervalMs: the value from the last render is at most that old.
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}
