/**
 * Attack 7 on issue 34, fixed: a form's `ansible.cfg` does not choose where its requirements.yml
 * installs from. ansible-galaxy runs in the job folder, where it would read the form's own
 * `ansible.cfg` (`[galaxy] server=`), which the cache key does not hold: two forms with the same
 * requirements.yml, each naming its own Galaxy server, shared one entry, and the second form's
 * jobs ran the first form's collection (`mark=from-the-attacker-server`). Now every install
 * command gets ANSIBLE_CONFIG pinned to the runner's configuration (server/rte/install-config.ts):
 * three fake Galaxy v3 servers on 127.0.0.1 serve a collection of the same name and version, each
 * with its own `mark` filter. Without a configuration of the runner's (the attack's setting) the
 * install reads an empty one: the form's server is never asked (the install goes to the default
 * Galaxy, unreachable here, and fails). With the RTE's ANSIBLE_CONFIG naming a third server, both
 * forms' jobs run that server's collection, and the forms' servers are never asked either.
 */
import { execa } from "execa";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "galaxycfgrun";
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack7-galaxy-forms-"));
const sources = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack7-galaxy-sources-"));
const h = new RteHarness(forms, RUNNER);
const servers: http.Server[] = [];
/** Requests each fake Galaxy server received, by its base URL. */
const asked = new Map<string, number>();

const PLAYBOOK = `- name: Uses its collection
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Which copy of the collection the controller runs
      ansible.builtin.debug:
        msg: "mark={{ 'x' | attack7.poison.mark }}"
`;

/** A collection attack7.poison 1.0.0 whose filter `mark` answers `mark`, built into a tarball. */
async function collection(name: string, mark: string): Promise<string> {
  const dir = path.join(sources, name);
  fs.mkdirSync(path.join(dir, "plugins", "filter"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "galaxy.yml"),
    "namespace: attack7\nname: poison\nversion: 1.0.0\nreadme: README.md\nauthors: [attack7]\n",
  );
  fs.writeFileSync(path.join(dir, "README.md"), "attack 7\n");
  fs.writeFileSync(
    path.join(dir, "plugins", "filter", "mark.py"),
    `class FilterModule(object):\n    def filters(self):\n        return {"mark": lambda value: "${mark}"}\n`,
  );
  await execa("ansible-galaxy", ["collection", "build", "--output-path", path.join(sources, `${name}-out`), dir]);
  return path.join(sources, `${name}-out`, "attack7-poison-1.0.0.tar.gz");
}

/** A Galaxy v3 API serving one collection, on 127.0.0.1; its base URL. */
async function galaxy(tarball: string): Promise<string> {
  const bytes = fs.readFileSync(tarball);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const server = http.createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    asked.set(`${base}/api/`, (asked.get(`${base}/api/`) ?? 0) + 1);
    const url = (request.url ?? "").split("?")[0];
    const json = (body: unknown) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    const version = "/api/v3/collections/attack7/poison/versions/1.0.0/";
    if (url === "/api/") json({ available_versions: { v3: "v3/" } });
    else if (url === "/api/v3/collections/attack7/poison/")
      json({
        namespace: "attack7",
        name: "poison",
        href: "/api/v3/collections/attack7/poison/",
        updated_at: "2026-01-01T00:00:00Z",
        highest_version: { version: "1.0.0", href: version },
      });
    else if (url === "/api/v3/collections/attack7/poison/versions/")
      json({ meta: { count: 1 }, links: { next: null }, data: [{ version: "1.0.0", href: version }] });
    else if (url === version)
      json({
        namespace: { name: "attack7" },
        collection: { name: "poison" },
        version: "1.0.0",
        href: version,
        download_url: `${base}/download/attack7-poison-1.0.0.tar.gz`,
        artifact: { sha256, filename: "attack7-poison-1.0.0.tar.gz", size: bytes.length },
        metadata: { dependencies: {} },
        signatures: [],
      });
    else if (url === "/download/attack7-poison-1.0.0.tar.gz") {
      response.writeHead(200, { "content-type": "application/octet-stream" });
      response.end(bytes);
    } else {
      response.writeHead(404, { "content-type": "application/json" });
      response.end("{}");
    }
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
}

function form(name: string, server: string): void {
  const dir = path.join(forms, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "form.yaml"), `name: ${name}\ntitle: attack 7 ${name}\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`);
  fs.writeFileSync(path.join(dir, "playbook.yml"), PLAYBOOK);
  fs.writeFileSync(path.join(dir, "requirements.yml"), "collections:\n  - name: attack7.poison\n    version: 1.0.0\n");
  fs.writeFileSync(path.join(dir, "ansible.cfg"), `[galaxy]\nserver = ${server}\n`);
  fs.chmodSync(dir, 0o755);
}

let attackerServer = "";
let victimServer = "";
let runnerConfig = "";

beforeAll(async () => {
  attackerServer = await galaxy(await collection("evil", "from-the-attacker-server"));
  victimServer = await galaxy(await collection("good", "from-the-victim-server"));
  const runnerServer = await galaxy(await collection("runner", "from-the-runner-server"));
  form("galaxy-attacker", attackerServer);
  form("galaxy-victim", victimServer);
  fs.chmodSync(forms, 0o755);
  // The runner's own configuration, readable by the playbook user (the harness keeps the
  // runner's /tmp in sight of the sandbox: a configuration hidden from the install is replaced by an empty one).
  runnerConfig = path.join(sources, "runner-ansible.cfg");
  fs.writeFileSync(runnerConfig, `[galaxy]\nserver = ${runnerServer}\n`, { mode: 0o644 });
  fs.chmodSync(sources, 0o755);
  await h.start();
}, 180_000);

afterAll(async () => {
  await h.stop();
  for (const server of servers) server.close();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(sources, { recursive: true, force: true });
});

it("without a configuration of the runner's, the install reads none: the form's ansible.cfg names a server never asked", async () => {
  const rte = h.startRte({ instanceId: "galaxycfg-0", ...h.dirs("galaxycfg-0") });
  try {
    const attacker = await h.api.launch("galaxy-attacker");
    const job = await h.api.waitForEnd(attacker, 240_000);
    const out = await h.api.output(attacker);
    expect(out).not.toContain("mark=from-the-attacker-server");
    expect(job.status, out).toBe("failed");
    expect(job.statusReason ?? "", out).toMatch(/^requirements: ansible-galaxy collection install/);
    expect(asked.get(attackerServer) ?? 0).toBe(0);
  } finally {
    await h.kill(rte, { groups: true });
  }
}, 600_000);

it("a form's ansible.cfg does not choose the Galaxy server of its requirements: the runner's configuration does", async () => {
  h.startRte({ instanceId: "galaxycfg-1", ...h.dirs("galaxycfg-1"), env: { ANSIBLE_CONFIG: runnerConfig } });
  const attacker = await h.api.launch("galaxy-attacker");
  const job1 = await h.api.waitForEnd(attacker, 240_000);
  const out1 = await h.api.output(attacker);
  expect(job1.status, `${job1.statusReason}\n${out1}`).toBe("success");
  expect(/mark=[a-z-]+/.exec(out1)?.[0]).toBe("mark=from-the-runner-server");

  const victim = await h.api.launch("galaxy-victim");
  const job2 = await h.api.waitForEnd(victim, 240_000);
  const out2 = await h.api.output(victim);
  expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
  expect(/mark=[a-z-]+/.exec(out2)?.[0]).toBe("mark=from-the-runner-server");
  expect({ attacker: asked.get(attackerServer) ?? 0, victim: asked.get(victimServer) ?? 0 }).toEqual({ attacker: 0, victim: 0 });
}, 600_000);
