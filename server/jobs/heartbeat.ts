/**
 * Heartbeats of runner instances: how often the app asks an RTE to send its state, and how long
 * an instance may stay silent before its running jobs are abandoned.
 */
import { LEGACY_HEARTBEAT_SECONDS } from "../protocol/rte-messages";

/** The shortest RTE_HEARTBEAT_TIMEOUT_SECONDS: it makes the interval one second. */
export const MIN_HEARTBEAT_TIMEOUT_SECONDS = 4;

/**
 * The interval the app asks for: four heartbeats per timeout, at most every 15 s (what RTEs
 * always sent), so one late or lost heartbeat never abandons a healthy runner's jobs.
 */
export function heartbeatIntervalSeconds(timeoutSeconds: number): number {
  return Math.min(LEGACY_HEARTBEAT_SECONDS, timeoutSeconds / 4);
}

/**
 * How long an instance may stay silent: the configured timeout, but never less than three
 * heartbeats of the interval it keeps (`heartbeatMs`; null for an RTE with the fixed 15 s, which
 * cannot beat faster), so a healthy runner is never abandoned for a timeout it cannot meet.
 */
export function silentAfterSeconds(timeoutSeconds: number, heartbeatMs: number | null): number {
  return Math.max(timeoutSeconds, 3 * (heartbeatMs === null ? LEGACY_HEARTBEAT_SECONDS : heartbeatMs / 1000));
}
