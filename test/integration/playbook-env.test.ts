/**
 * A playbook gets an allow list of the runner's environment, never the whole of it. The app is
 * started the way real deployments start it, with the database password and a cloud's secret
 * key in its environment; its local runner runs a playbook that prints its whole environment
 * (`env`): neither the names nor the values of those secrets are in it, the path and the locale
 * are, and so is a variable the operator names in RTE_PLAYBOOK_ENV_PASS. The local runner
 * process itself is not handed those secrets either.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const PGPASSWORD = "pg-password-of-the-app-5a1c";
const AWS_SECRET_ACCESS_KEY = "aws-secret-of-the-app-9f3e";
const GITHUB_TOKEN = "ghp_token-of-the-app-77d2";
const SOME_VAR = "passed-on-purpose-41b0";

let formsDir: string;
let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-playbook-env-"));
  const form = path.join(formsDir, "print-env");
  fs.mkdirSync(form);
  fs.writeFileSync(
    path.join(form, "form.yaml"),
    "name: print-env\ntitle: Print env\nplaybook: playbook.yml\ninventories: [inventory.ini]\nfields: []\n",
  );
  fs.writeFileSync(path.join(form, "inventory.ini"), "localhost ansible_connection=local\n");
  fs.writeFileSync(
    path.join(form, "playbook.yml"),
    [
      "- hosts: localhost",
      "  gather_facts: false",
      "  tasks:",
      "    - ansible.builtin.command: env",
      "      register: printed",
      "    - ansible.builtin.debug:",
      '        msg: "ENV-BEGIN\\n{{ printed.stdout }}\\nENV-END"',
      "",
    ].join("\n"),
  );
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: formsDir,
      LANG: "C.UTF-8",
      PGPASSWORD,
      AWS_SECRET_ACCESS_KEY,
      GITHUB_TOKEN,
      SOME_VAR,
      RTE_PLAYBOOK_ENV_PASS: "SOME_VAR",
    },
  });
  api = apiClient(app, await adminToken(app));
}, 240_000);

afterAll(async () => {
  await app?.stop();
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

it("passes the playbook its path, locale and the operator's RTE_PLAYBOOK_ENV_PASS, never the app's secrets", async () => {
  const job = await api.waitForEnd(await api.launch("print-env"));
  const output = await api.output(job.id);
  expect(job.status, output).toBe("success");
  const printed = /ENV-BEGIN\\n([\s\S]*?)\\nENV-END/.exec(output)?.[1]?.split("\\n");
  expect(printed, output).toBeDefined();
  const names = printed!.map((line) => line.split("=")[0] ?? "");
  expect(names).toContain("PATH");
  expect(printed).toContain("LANG=C.UTF-8");
  expect(printed).toContain(`SOME_VAR=${SOME_VAR}`);
  for (const secret of ["PGPASSWORD", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "DATABASE_URL", "ENCRYPTION_SECRET"]) {
    expect(names).not.toContain(secret);
    expect(output).not.toContain(secret);
  }
  for (const value of [PGPASSWORD, AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, app.adminPassword]) expect(output).not.toContain(value);
  expect(names.filter((name) => name.startsWith("RTE_"))).toEqual([]);

  // Nor does the local RTE itself hold them: it has no use for them.
  const rtePid = (JSON.parse(fs.readFileSync(path.join(app.dataDir, "rte/spool/rte.lock"), "utf8")) as { pid: number }).pid;
  const rteEnv = fs.readFileSync(`/proc/${rtePid}/environ`, "utf8").split("\0");
  expect(rteEnv).toContain(`SOME_VAR=${SOME_VAR}`);
  for (const value of [PGPASSWORD, AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN]) expect(rteEnv.join("\n")).not.toContain(value);
});
