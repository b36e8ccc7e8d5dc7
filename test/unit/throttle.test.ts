/**
 * RecentEvents.take: check and count in one synchronous step, so attempts that arrive together
 * can never all see the last free place (100 parallel logins once got 44 answers of 401).
 */
import { expect, it } from "vitest";
import { RecentEvents } from "../../server/auth/throttle";

it("take counts while under the limit and refuses after, forget gives a place back", () => {
  const events = new RecentEvents(3, 60_000);
  const now = 1_000_000;
  const waits = Array.from({ length: 10 }, () => events.take("name", now));
  expect(waits.filter((wait) => wait === 0)).toHaveLength(3);
  expect(waits.slice(3).every((wait) => wait === 60)).toBe(true);
  events.forget("name", now);
  expect(events.take("name", now + 1)).toBe(0);
  expect(events.take("name", now + 2)).toBeGreaterThan(0);
  // Forgetting what was never recorded changes nothing.
  events.forget("name", 42);
  events.forget("other", now);
  expect(events.retryAfterSeconds("name", now + 2)).toBeGreaterThan(0);
  expect(events.take("name", now + 60_001)).toBe(0);
});
