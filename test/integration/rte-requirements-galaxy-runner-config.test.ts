/**
 * Attack 7 on issue 34: one form decides what another form's jobs run, through the shared
 * requirements.yml cache. ansible-galaxy runs in the job folder, so it reads the form's own
 * `ansible.cfg` (`[galaxy] server=`): the form chooses where its collections come from, but the
 * cache key (requirementsKey, server/rte/requirements.ts) holds only the runner's galaxy
 * server (RTE_GALAXY_SERVER, unset here), the requirements file's bytes and local paths. Two
 * forms with the same requirements.yml (`attack7.poison` 1.0.0), each with an ansible.cfg
 * naming its Galaxy server (a private hub, as AWX projects ship it): the first to run installs
 * from its server, and the other form's jobs then run that collection. Two fake Galaxy v3
 * servers on 127.0.0.1 serve a collection of the same name and version with a different filter.
 *
 * Seen on today's code: the victim's job says `requirements: cached since …` and prints
 * `mark=from-the-attacker-server`.
 */
import { execa } from "execa";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../../support/rte-harness";

const RUNNER = "galaxycfgrun";
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack7-galaxy-forms-"));
const sources = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack7-galaxy-sources-"));
const h = new RteHarness(forms, RUNNER);
const servers: http.Server[] = [];

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

beforeAll(async () => {
  form("galaxy-attacker", await galaxy(await collection("evil", "from-the-attacker-server")));
  form("galaxy-victim", await galaxy(await collection("good", "from-the-victim-server")));
  fs.chmodSync(forms, 0o755);
  await h.start();
  h.startRte({ instanceId: "galaxycfg-0", ...h.dirs("galaxycfg-0") });
}, 180_000);

afterAll(async () => {
  await h.stop();
  for (const server of servers) server.close();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(sources, { recursive: true, force: true });
});

it("a form's jobs do not run a collection another form's ansible.cfg chose for the same requirements.yml", async () => {
  const attacker = await h.api.launch("galaxy-attacker");
  const job1 = await h.api.waitForEnd(attacker, 240_000);
  const out1 = await h.api.output(attacker);
  expect(job1.status, `${job1.statusReason}\n${out1}`).toBe("success");
  expect(out1).toContain("mark=from-the-attacker-server");

  const victim = await h.api.launch("galaxy-victim");
  const job2 = await h.api.waitForEnd(victim, 240_000);
  const out2 = await h.api.output(victim);
  expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
  const line = /mark=[a-z-]+/.exec(out2)?.[0];
  const requirements = /requirements: (?:cached since|(?:ansible-galaxy )?install)[^\n]*/.exec(out2)?.[0];
  expect({ line, cached: requirements?.startsWith("requirements: cached since") }, out2).toEqual({
    line: "mark=from-the-victim-server",
    cached: false,
  });
}, 600_000);
