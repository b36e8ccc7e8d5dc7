/**
 * Entry point of the runtime environment process (`npm run rte`, or PLAYFORM_ROLE=rte).
 */
import type { AddressInfo } from "node:net";
import { RTE_VERSION, RteAgent } from "./agent";
import { loadRteEnv } from "./env";
import { startHealthServer } from "./health";
import { JoinRefusedError, obtainToken } from "./join";

function log(message: string): void {
  process.stdout.write(`[rte] ${new Date().toISOString()} ${message}\n`);
}

export async function runRte(): Promise<void> {
  let env;
  try {
    env = loadRteEnv();
  } catch (error) {
    process.stderr.write(`[rte] ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  let token: string;
  try {
    token = await obtainToken(env, RTE_VERSION, log);
  } catch (error) {
    process.stderr.write(`[rte] ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof JoinRefusedError ? 3 : 1);
  }
  const agent = new RteAgent(env, token, log);
  const health = await startHealthServer(agent, env.PORT, env.RTE_MAX_JOBS);
  log(`health endpoints on port ${(health.address() as AddressInfo).port} (/live /ready /metrics)`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received`);
    void agent.drain().finally(() => {
      health.close();
      log("stopped");
      process.exit(0);
    });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
