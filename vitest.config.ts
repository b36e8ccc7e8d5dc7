import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(import.meta.dirname) };

/**
 * Integration files that run alone, after the others: they stop or freeze processes and
 * time what follows (heartbeat and lease timeouts, reconnect backoff, process-group kills),
 * start several apps against one database, or push a gigabyte through the app, so a busy
 * machine changes what they observe. Everything else runs INTEGRATION_WORKERS files at a
 * time: each file starts its own app and RTE on a free port, with its own data folder,
 * database and spool, and most of its time is spent waiting for playbooks.
 */
const SERIAL_INTEGRATION = [
  "api-input",
  "fault-tolerance",
  "heartbeat",
  "local-rte-restart",
  "multi-node-start",
  "rte-heartbeat-colour-resets-stats",
  "rte-inbound-lease",
  "rte-kill-9",
  "rte-process-groups",
  "rte-resilience",
  "timeline",
].map((name) => `test/integration/${name}.test.ts`);

/** Files of the integration project at once (PLAYFORM_TEST_WORKERS, default 3). */
const INTEGRATION_WORKERS = Number(process.env.PLAYFORM_TEST_WORKERS ?? 3);

// Three suites with different costs: unit (pure, fast), integration (real app + RTE +
// ansible-playbook + databases; two projects, integration and integration-serial), e2e (real
// Chromium). `npm test` runs all three.
export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "server/**/*.test.ts", "components/**/*.test.ts"],
          environment: "node",
          // A hang detector, not a speed target (speed lives in test/bench): a few unit tests
          // take 1-2 s here (10 MB through the batcher, the import-layer checker, scrypt) and
          // must not fail on a slower or busier CI machine.
          testTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          exclude: SERIAL_INTEGRATION,
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 240_000,
          maxWorkers: INTEGRATION_WORKERS,
          // Its own group (vitest refuses two worker counts in one), after the unit tests when
          // one command names files of both.
          sequence: { groupOrder: 1 },
        },
      },
      {
        resolve: { alias },
        test: {
          // One file at a time; vitest runs a project without file parallelism after the others.
          name: "integration-serial",
          include: SERIAL_INTEGRATION,
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
