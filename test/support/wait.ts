/**
 * Waiting for a condition instead of sleeping a fixed time: a test goes on as soon as what it
 * waits for holds, and on a slow machine it waits longer instead of failing. The deadline is
 * generous on purpose; reaching it is a failure that says what was awaited.
 */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it returns a truthy value, and returns that value. Past the deadline it
 * throws, naming `what`, plus `details()` (say, the app's output) when given.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  options: { timeoutMs?: number; intervalMs?: number; details?: () => string } = {},
): Promise<T> {
  const { timeoutMs = 60_000, intervalMs = 200 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${options.details ? `\n${options.details()}` : ""}`);
    }
    await sleep(intervalMs);
  }
}
