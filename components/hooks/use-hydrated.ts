"use client";

import { useSyncExternalStore } from "react";

const subscribe = (): (() => void) => () => {};

/**
 * False while React hydrates the server's HTML (and on the server), true from the render after.
 * What depends on the clock or on the browser's locale and time zone (a running job's duration,
 * "14:03:07" or "2:03:07 PM") cannot be the same in the server's HTML and in the browser's first
 * render: a component shows it only once this is true, so hydration matches (no React #418).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
