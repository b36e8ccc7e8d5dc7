/**
 * Joining: an RTE started without RTE_TOKEN asks the app to join under RTE_RUNNER_NAME, shows
 * as pending on the admin's runner page, and waits. Once approved it receives its token
 * exactly once and keeps it in RTE_STATE_PATH (mode 0600), so a restart needs no new approval.
 * A rejected RTE stops retrying.
 */
import { hostname } from "node:os";
import fs from "node:fs";
import path from "node:path";
import { CONTRACT_VERSION } from "../protocol/rte-messages";
import { joinAnswerSchema, joinStatusAnswerSchema } from "../protocol/join";
import type { RteEnv } from "./env";

const POLL_MS = 5_000;

export class JoinRefusedError extends Error {}

interface PendingJoin {
  runnerId: string;
  joinSecret: string;
}

export async function obtainToken(
  env: RteEnv,
  version: string,
  log: (line: string) => void,
  certFingerprint: string | null = null,
): Promise<string> {
  if (env.RTE_TOKEN) return env.RTE_TOKEN;
  fs.mkdirSync(env.stateDir, { recursive: true, mode: 0o700 });
  const tokenFile = path.join(env.stateDir, "token");
  const joinFile = path.join(env.stateDir, "join.json");
  if (fs.existsSync(tokenFile)) return fs.readFileSync(tokenFile, "utf8").trim();

  let pending: PendingJoin | null = fs.existsSync(joinFile) ? (JSON.parse(fs.readFileSync(joinFile, "utf8")) as PendingJoin) : null;
  let announced = false;
  for (;;) {
    try {
      if (!pending) {
        pending = await requestJoin(env, version, certFingerprint);
        fs.writeFileSync(joinFile, JSON.stringify(pending), { mode: 0o600 });
      }
      if (!announced) {
        log(`asked to join ${env.APP_URL} as runner "${env.RTE_RUNNER_NAME}": waiting for an admin to approve it on the Runners page`);
        announced = true;
      }
      const answer = await postJson(`${env.APP_URL}/api/runners/join/status`, { v: CONTRACT_VERSION, ...pending });
      const status = joinStatusAnswerSchema.parse(answer.body);
      if (status.status === "approved") {
        fs.writeFileSync(tokenFile, status.token, { mode: 0o600 });
        fs.rmSync(joinFile, { force: true });
        log(`runner "${env.RTE_RUNNER_NAME}" approved; token stored in ${tokenFile}`);
        return status.token;
      }
      if (status.status === "rejected" || status.status === "revoked") {
        fs.rmSync(joinFile, { force: true });
        throw new JoinRefusedError(`an admin ${status.status} runner "${env.RTE_RUNNER_NAME}": not retrying`);
      }
      if (status.status === "collected" || status.status === "unknown") {
        fs.rmSync(joinFile, { force: true });
        throw new JoinRefusedError(
          status.status === "collected"
            ? `the token of runner "${env.RTE_RUNNER_NAME}" was already collected by another process; rotate it on the Runners page and set RTE_TOKEN`
            : `the app no longer knows this join request; start again to ask anew`,
        );
      }
    } catch (error) {
      if (error instanceof JoinRefusedError) throw error;
      log(`join: ${error instanceof Error ? error.message : String(error)}; retrying`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function requestJoin(env: RteEnv, version: string, certFingerprint: string | null): Promise<PendingJoin> {
  const answer = await postJson(`${env.APP_URL}/api/runners/join`, {
    v: CONTRACT_VERSION,
    name: env.RTE_RUNNER_NAME,
    address: env.RTE_ADDRESS ?? null,
    mode: env.RTE_MODE,
    version,
    capacity: env.RTE_MAX_JOBS,
    certFingerprint,
    hostName: hostname(),
  });
  if (answer.status === 409 || answer.status === 400) {
    const message = (answer.body as { error?: { message?: string } }).error?.message ?? `HTTP ${answer.status}`;
    throw new JoinRefusedError(`join refused: ${message}`);
  }
  if (answer.status !== 202) throw new Error(`join request answered HTTP ${answer.status}`);
  return joinAnswerSchema.parse(answer.body);
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { error: { message: text.slice(0, 200) } };
  }
  return { status: response.status, body: parsed };
}
