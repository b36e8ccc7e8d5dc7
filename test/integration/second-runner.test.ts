/**
 * The README's second runner, on the machine that runs `npm start` (README, "Adding a runner"):
 *
 *   APP_URL=http://playform.example:3000 RTE_RUNNER_NAME=datacenter-2 npm run rte
 *
 * run in the very folder where the app runs with its default folders (data/rte/… for the
 * local RTE). The second RTE must neither stop at the local RTE's lock on its spool nor read
 * the local runner's token from the local RTE's state folder: it asks to join, is approved,
 * connects and runs a job, while the local RTE stays connected.
 */
import { execa, type ResultPromise } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { killGroup } from "../support/processes";
import { waitFor } from "../support/wait";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** What `npm start` and `npm run rte` read from the folder they run in. */
const INSTALLED = [".next", "dist", "node_modules", "package.json", "next.config.js", "prisma", "server"];

let folder: string;
let app: RunningPlayform;
let admin: ApiClient;
let second: ResultPromise | undefined;
let secondOutput = "";

beforeAll(async () => {
  // An installation of this build of its own, so its data/ folder is the test's alone.
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "playform-install-"));
  for (const entry of INSTALLED) fs.symlinkSync(path.join(ROOT, entry), path.join(folder, entry));
  // npm start's defaults: the database in data/, the local RTE's folders in data/rte.
  app = await startPlayform({
    root: folder,
    env: { DATABASE_URL: "file:./data/playform.db", RTE_SPOOL_PATH: "", RTE_WORK_DIR: "", RTE_STATE_PATH: "" },
  });
  admin = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  if (second?.pid !== undefined && second.exitCode === null) killGroup(second.pid);
  await second?.catch(() => undefined);
  await app?.stop();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

it("joins, connects and runs a job next to the local RTE, with the README's command as written", async () => {
  expect(fs.existsSync(path.join(folder, "data/rte/spool/rte.lock"))).toBe(true);
  expect(fs.readFileSync(path.join(folder, "data/rte/state/token"), "utf8")).toMatch(/^pfr_/);

  // The documented command; only PORT is added (the RTE's health port, 8000 by default, may be
  // taken on a shared test machine). Nothing else of the test's environment leaks in.
  second = execa("npm", ["run", "rte"], {
    cwd: folder,
    extendEnv: false,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, APP_URL: app.url, RTE_RUNNER_NAME: "datacenter-2", PORT: "0" },
    detached: true,
    all: true,
    reject: false,
    buffer: false,
  });
  second.all?.setEncoding("utf8").on("data", (text: string) => (secondOutput += text));
  const details = () => `--- second RTE ---\n${secondOutput}`;

  const runner = async () => ((await admin.get("/api/runners")).runners as any[]).find((r) => r.name === "datacenter-2");
  const pending = await waitFor(
    "the join request of datacenter-2",
    async () => ((await runner())?.status === "pending" ? runner() : null),
    {
      timeoutMs: 60_000,
      details,
    },
  );
  expect((await admin.call("POST", `/api/runners/${pending.id}/approve`)).status).toBe(200);
  await waitFor("datacenter-2 connected", async () => (await runner())?.instances.some((i: any) => i.connected), {
    timeoutMs: 60_000,
    details,
  });
  // Its own folders, named after it; the local runner's token was not touched.
  const token = fs.readFileSync(path.join(folder, "data/rte/datacenter-2/state/token"), "utf8").trim();
  expect(token).toMatch(/^pfr_/);
  expect(token).not.toBe(fs.readFileSync(path.join(folder, "data/rte/state/token"), "utf8").trim());
  expect(fs.existsSync(path.join(folder, "data/rte/datacenter-2/spool/rte.lock"))).toBe(true);

  // It takes jobs: as the default runner, hello-world runs there.
  expect((await admin.call("POST", `/api/runners/${pending.id}/default`)).status).toBe(200);
  const job = await admin.waitForEnd(await admin.launch("hello-world", { message: "on datacenter-2" }));
  expect([job.status, job.runner]).toEqual(["success", "datacenter-2"]);
  const local = ((await admin.get("/api/runners")).runners as any[]).find((r) => r.name === "local");
  expect(local.instances.some((i: any) => i.connected)).toBe(true);
});
