/**
 * The heartbeat rules: the interval the app asks runners for follows the timeout, an RTE that
 * keeps the old fixed 15 s is given the time it needs, and an impossible timeout is refused at
 * start with the variable's name.
 */
import { expect, it } from "vitest";
import { loadAppConfig } from "../../server/config";
import { heartbeatIntervalSeconds, silentAfterSeconds } from "../../server/jobs/heartbeat";

it("asks for four heartbeats per timeout, never less often than every 15 s", () => {
  expect(heartbeatIntervalSeconds(6)).toBe(1.5);
  expect(heartbeatIntervalSeconds(20)).toBe(5);
  expect(heartbeatIntervalSeconds(120)).toBe(15);
});

it("abandons after the timeout, or three heartbeats of an RTE that cannot beat faster", () => {
  expect(silentAfterSeconds(6, 1_500)).toBe(6);
  expect(silentAfterSeconds(120, 15_000)).toBe(120);
  expect(silentAfterSeconds(6, null)).toBe(45);
  expect(silentAfterSeconds(120, null)).toBe(120);
});

it("refuses a heartbeat timeout under 4 s, naming the variable", () => {
  expect(loadAppConfig({ RTE_HEARTBEAT_TIMEOUT_SECONDS: "4" }).RTE_HEARTBEAT_TIMEOUT_SECONDS).toBe(4);
  expect(() => loadAppConfig({ RTE_HEARTBEAT_TIMEOUT_SECONDS: "3" })).toThrow(/RTE_HEARTBEAT_TIMEOUT_SECONDS: must be at least 4 seconds/);
});
