/**
 * Runners join by request and an admin decides, through the real API and real RTE processes:
 * approve (the waiting RTE gets its token once and takes jobs), reject (the RTE stops),
 * default runner, revoke (its link is closed and its token refused).
 */
import { execa, type ResultPromise } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const ROOT = path.resolve(import.meta.dirname, "../..");
let app: RunningPlayform;
let token: string;
const children: ResultPromise[] = [];
const dirs: string[] = [];

interface Rte {
  child: ResultPromise;
  output: () => string;
  stateDir: string;
}

function startRte(name: string): Rte {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `playform-rte-${name}-`));
  dirs.push(dir);
  let output = "";
  const child = execa(process.execPath, ["dist/rte.js"], {
    cwd: ROOT,
    env: {
      APP_URL: app.url,
      RTE_RUNNER_NAME: name,
      RTE_INSTANCE_ID: `${name}-0`,
      PORT: "0",
      RTE_SPOOL_PATH: path.join(dir, "spool"),
      RTE_WORK_DIR: path.join(dir, "work"),
      RTE_STATE_PATH: path.join(dir, "state"),
      RTE_TOKEN: undefined,
    },
    all: true,
    reject: false,
    buffer: false,
  });
  child.all?.setEncoding("utf8").on("data", (text: string) => (output += text));
  children.push(child);
  return { child, output: () => output, stateDir: path.join(dir, "state") };
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function api(method: string, url: string, body?: unknown) {
  return apiClient(app, token).call(method, url, body ? { json: body } : {});
}

async function runner(name: string) {
  const { json } = await api("GET", "/api/runners");
  return (json.runners as any[]).find((r) => r.name === name);
}

beforeAll(async () => {
  app = await startPlayform();
  token = await adminToken(app);
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await app?.stop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("joining", () => {
  it("an approved runner gets its token once, connects, and runs jobs as the default runner", async () => {
    const rte = startRte("dc2");
    const pending = await until("pending runner", async () => (await runner("dc2"))?.status === "pending" && runner("dc2"));
    expect(pending.instances).toEqual([]);

    const approve = await api("POST", `/api/runners/${pending.id}/approve`);
    expect(approve.status).toBe(200);
    await until("RTE connected", async () => /connected to /.test(rte.output()));
    expect(fs.readFileSync(path.join(rte.stateDir, "token"), "utf8")).toMatch(/^pfr_/);
    expect((fs.statSync(path.join(rte.stateDir, "token")).mode & 0o777).toString(8)).toBe("600");
    const live = await until("instance listed", async () => {
      const r = await runner("dc2");
      return r?.instances.some((i: any) => i.connected) && r;
    });
    expect(live.status).toBe("approved");

    expect((await api("POST", `/api/runners/${pending.id}/approve`)).status).toBe(409);
    expect((await api("POST", `/api/runners/${pending.id}/default`)).status).toBe(200);
    expect((await runner("local")).isDefault).toBe(false);

    const launch = await api("POST", "/api/jobs", { form: "hello-world", values: { message: "on dc2" } });
    const job = await until(
      "job done",
      async () => {
        const { json } = await api("GET", `/api/jobs/${launch.json.id}`);
        return ["success", "failed"].includes(json.job.status) && json.job;
      },
      90_000,
    );
    expect(job.status).toBe("success");
    expect(job.runner).toBe("dc2");

    // Revoke: the link is closed at once and the token is refused from then on.
    expect((await api("POST", `/api/runners/${pending.id}/revoke`)).status).toBe(200);
    await until("link closed", async () => /the app closed this runner's link: runner revoked/.test(rte.output()));
    await until("token refused", async () => /runner dc2 is revoked|unknown runner token/.test(rte.output()));
    expect((await runner("dc2")).status).toBe("revoked");
  });

  it("a rejected runner is told and stops retrying", async () => {
    const rte = startRte("intruder");
    const pending = await until("pending runner", async () => (await runner("intruder"))?.status === "pending" && runner("intruder"));
    expect((await api("POST", `/api/runners/${pending.id}/reject`)).status).toBe(200);
    const result = await rte.child;
    expect(result.exitCode).toBe(3);
    expect(rte.output()).toMatch(/an admin rejected runner \\?"intruder\\?": not retrying/);
  });

  it("a join request shows the address it came from and the host name the RTE reports; a rejected runner can be deleted", async () => {
    const rte = startRte("visitor");
    const pending = await until("pending runner", async () => (await runner("visitor"))?.status === "pending" && runner("visitor"));
    // The app saw the RTE come from the loopback address; the RTE reported this machine's name.
    expect(pending.joinAddress).toBe("127.0.0.1");
    expect(pending.hostName).toBe(os.hostname());
    // Only a rejected runner can be deleted: a pending one must be decided first.
    expect((await api("DELETE", `/api/runners/${pending.id}`)).status).toBe(409);
    expect((await api("POST", `/api/runners/${pending.id}/reject`)).status).toBe(200);
    expect((await rte.child).exitCode).toBe(3);
    expect((await api("DELETE", `/api/runners/${pending.id}`)).status).toBe(204);
    expect(await runner("visitor")).toBeUndefined();
    expect((await api("DELETE", `/api/runners/${pending.id}`)).status).toBe(404);
    // The name is free again: the same machine may ask anew.
    const again = await apiClient(app, token).call("POST", "/api/runners/join", {
      json: { v: 1, name: "visitor", version: "x", capacity: 1, hostName: "visitor.example" },
      auth: false,
    });
    expect(again.status, JSON.stringify(again.json)).toBe(202);
    expect((await runner("visitor")).hostName).toBe("visitor.example");
    // An approved runner is never deleted (its jobs name it): revoke is what ends it.
    expect((await api("DELETE", `/api/runners/${(await runner("local")).id}`)).status).toBe(409);
    const audit = await api("GET", "/api/audit?action=runner.delete");
    expect(audit.status).toBe(200);
    expect(audit.json.events.map((e: any) => [e.target, e.outcome])).toContainEqual(["runner:visitor", "success"]);
  });

  it("refuses a second runner with a taken name, unknown actions, and non-admins", async () => {
    const join = (name: string) =>
      apiClient(app, token).call("POST", "/api/runners/join", { json: { v: 1, name, version: "x", capacity: 1 }, auth: false });
    const taken = await join("local");
    expect(taken.status).toBe(409);
    const bad = await join("bad name!");
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/name/);
    const local = await runner("local");
    expect((await api("POST", `/api/runners/${local.id}/explode`)).status).toBe(404);
    expect((await apiClient(app, token).call("GET", "/api/runners", { auth: false })).status).toBe(401);
  });
});
