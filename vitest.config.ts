import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(import.meta.dirname) };

// Three suites with different costs: unit (pure, fast), integration (real app + RTE +
// ansible-playbook + databases), e2e (real Chromium). `npm test` runs all three.
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
