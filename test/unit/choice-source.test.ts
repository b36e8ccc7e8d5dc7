/**
 * Choice sources (server/forms/choice-source.ts) and hosts fields' choices
 * (server/forms/host-choices.ts): placeholders filled and encoded, selectors, the cache and the
 * errors against a local HTTP server, and the names in real `ansible-inventory --list` JSON.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DomainError } from "../../server/errors";
import {
  choicesAtLaunch,
  clearChoiceCache,
  fillSourceUrl,
  isSourceField,
  selectChoices,
  sourceChoices,
  type SourceField,
} from "../../server/forms/choice-source";
import { formDefinitionSchema, type FormDefinition } from "../../server/forms/definition";
import { buildManifest } from "../../server/forms/manifest";
import { readLaunchedFiles } from "../../server/jobs/job-files";
import { hostFieldChoices, inventoryNames } from "../../server/forms/host-choices";
import { loadRteEnv } from "../../server/rte/env";
import { defaultEnvironment } from "../../server/rte/environments";
import { FileCache } from "../../server/rte/file-cache";
import { listInventory } from "../../server/rte/inventory-list";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");

const fields = formDefinitionSchema.parse({
  name: "f",
  title: "F",
  playbook: "p.yml",
  fields: [
    { name: "env", label: "Environment", type: "text" },
    { name: "tags", type: "multiselect", options: ["a,b", "c d"] },
    { name: "count", type: "number" },
    { name: "rows", type: "table", columns: [{ name: "x", type: "text" }] },
  ],
}).fields;

function domainError(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("no DomainError thrown");
}

describe("fillSourceUrl", () => {
  it("encodes each value with encodeURIComponent: it cannot add a segment, a parameter or a host", () => {
    const url = fillSourceUrl("http://h/items/{env}?e={env}&n={count}", fields, { env: "a b/&?#x=@h", count: 3 });
    expect(url).toBe("http://h/items/a%20b%2F%26%3F%23x%3D%40h?e=a%20b%2F%26%3F%23x%3D%40h&n=3");
  });

  it("joins a list's items with commas, each encoded (an item's own comma is %2C)", () => {
    expect(fillSourceUrl("http://h/?t={tags}", fields, { tags: ["a,b", "c d"] })).toBe("http://h/?t=a%2Cb,c%20d");
  });

  it("asks to fill in an empty field first, by its label (422)", () => {
    for (const env of [undefined, "", "  ", null]) {
      const error = domainError(() => fillSourceUrl("http://h/{env}", fields, env === undefined ? {} : { env }));
      expect(error.code).toBe("validation_failed");
      expect(error.message).toBe("fill in Environment first");
    }
    expect(domainError(() => fillSourceUrl("http://h/{tags}", fields, { tags: [] })).message).toBe("fill in tags first");
  });

  it("refuses a value that is not text, a number or a list of those", () => {
    const error = domainError(() => fillSourceUrl("http://h/{rows}", fields, { rows: [{ x: "1" }] }));
    expect(error.message).toBe("rows cannot be put in the choices' URL");
  });

  it("refuses a value that would be a . or .. segment (a URL parser resolves them, %2E too)", () => {
    for (const env of ["..", "."]) {
      const error = domainError(() => fillSourceUrl("http://h/items/{env}/list?x=1", fields, { env }));
      expect(error.message).toBe("a value . or .. cannot be put in the choices' URL");
    }
    expect(fillSourceUrl("http://h/items/{env}?e={env}", fields, { env: "..." })).toBe("http://h/items/...?e=...");
    // A value's own "%" is encoded: "%2e%2e" arrives as text, not as a dot segment.
    expect(fillSourceUrl("http://h/items/{env}", fields, { env: "%2e%2e" })).toBe("http://h/items/%252e%252e");
    expect(fillSourceUrl("http://h/items?e={env}", fields, { env: ".." })).toBe("http://h/items?e=..");
  });

  it("does not read a placeholder from the values' prototype", () => {
    expect(domainError(() => fillSourceUrl("http://h/{constructor}", fields, {})).message).toBe("fill in constructor first");
  });
});

describe("selectChoices", () => {
  it("takes the items, their value and label; values become text; duplicates and non-scalars are dropped", () => {
    const json = {
      items: [
        { id: 1, name: "One" },
        { id: "two" },
        { id: true, name: 5 },
        { id: 1, name: "again" },
        { id: { nested: 1 }, name: "object" },
        { name: "no id" },
      ],
    };
    expect(selectChoices({ items: "$.items[*]", value: "$.id", label: "$.name" }, json)).toEqual([
      { value: "1", label: "One" },
      { value: "two", label: "two" },
      { value: "true", label: "5" },
    ]);
  });

  it("defaults: the answer is the list, each item its own value (falsy items too)", () => {
    expect(selectChoices({ items: "$[*]", value: "$" }, ["a", 0, false, "", null])).toEqual([
      { value: "a", label: "a" },
      { value: "0", label: "0" },
      { value: "false", label: "false" },
      { value: "", label: "" },
    ]);
  });

  it("evaluates no script: a filter expression fails as a bad selector (502), it does not run", () => {
    (globalThis as { pwned?: boolean }).pwned = false;
    const error = domainError(() => selectChoices({ items: "$[?(globalThis.pwned = true)]", value: "$" }, [1, 2]));
    expect(error.code).toBe("bad_gateway");
    expect((globalThis as { pwned?: boolean }).pwned).toBe(false);
  });

  it("refuses more than 5000 choices", () => {
    const json = Array.from({ length: 5001 }, (_, i) => i);
    expect(domainError(() => selectChoices({ items: "$[*]", value: "$" }, json)).message).toMatch(/more than 5000 choices/);
  });
});

describe("sourceChoices against an HTTP server", () => {
  const requests: string[] = [];
  let server: http.Server;
  let base = "";

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      requests.push(request.url!);
      const url = new URL(request.url!, "http://x");
      if (url.pathname === "/slow") return void setTimeout(() => response.end("[]"), 1500);
      if (url.pathname === "/down") return void response.writeHead(503).end("down");
      if (url.pathname === "/html") return void response.end("<html>");
      if (url.pathname === "/big") {
        response.write("[");
        const chunk = `${'"x",'.repeat(100_000)}`;
        for (let i = 0; i < 20; i++) response.write(chunk);
        return void response.end('"x"]');
      }
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify([`${url.searchParams.get("q")}-1`, `${url.searchParams.get("q")}-2`]));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    clearChoiceCache();
    requests.length = 0;
  });

  function form(url: string, extra: Record<string, unknown> = {}): { definition: FormDefinition; field: SourceField } {
    const definition = formDefinitionSchema.parse({
      name: "f",
      title: "F",
      playbook: "p.yml",
      fields: [
        { name: "q", type: "text" },
        { name: "pick", type: "select", source: { url, timeoutSeconds: 0.5, ...extra } },
      ],
    });
    const field = definition.fields[1]!;
    if (!isSourceField(field)) throw new Error("not a source field");
    return { definition, field };
  }

  it("fetches the filled URL and caches the answer per filled URL", async () => {
    const { definition, field } = form(`${base}/items?q={q}`);
    expect(await sourceChoices(definition, field, { q: "a b" })).toEqual([
      { value: "a b-1", label: "a b-1" },
      { value: "a b-2", label: "a b-2" },
    ]);
    await sourceChoices(definition, field, { q: "a b" });
    await sourceChoices(definition, field, { q: "c" });
    expect(requests).toEqual(["/items?q=a%20b", "/items?q=c"]);
  });

  it("does not cache with cacheSeconds 0", async () => {
    const { definition, field } = form(`${base}/items?q={q}`, { cacheSeconds: 0 });
    await sourceChoices(definition, field, { q: "x" });
    await sourceChoices(definition, field, { q: "x" });
    expect(requests).toHaveLength(2);
  });

  it("maps the source's failures: status (502), timeout (504), not JSON, too big, unreachable (502); none is cached", async () => {
    const failure = async (url: string) => {
      const { definition, field } = form(url);
      const error = await sourceChoices(definition, field, {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      return error as DomainError;
    };
    expect(await failure(`${base}/down`)).toMatchObject({
      code: "bad_gateway",
      message: "the choices source answered 503 Service Unavailable",
    });
    expect(await failure(`${base}/slow`)).toMatchObject({
      code: "gateway_timeout",
      message: "the choices source did not answer within 0.5 s",
    });
    expect(await failure(`${base}/html`)).toMatchObject({ code: "bad_gateway", message: "the choices source did not answer JSON" });
    expect(await failure(`${base}/big`)).toMatchObject({ code: "bad_gateway", message: "the choices source's answer is over 5 MiB" });
    expect((await failure("http://127.0.0.1:9/")).message).toMatch(/^the choices source could not be reached/);
    await failure(`${base}/down`);
    expect(requests.filter((r) => r === "/down")).toHaveLength(2);
  });
  it("at launch: fetches shown source fields that hold a value, and names the field on failure", async () => {
    const definition = formDefinitionSchema.parse({
      name: "f",
      title: "F",
      playbook: "p.yml",
      fields: [
        { name: "q", type: "text" },
        { name: "show", type: "checkbox" },
        { name: "pick", label: "Pick", type: "select", source: { url: `${base}/items?q={q}` } },
        { name: "hidden", type: "select", visibleWhen: { field: "show", equals: true }, source: { url: `${base}/hidden` } },
        { name: "empty", type: "select", source: { url: `${base}/empty` } },
        // Left out, it takes its default, which is checked like a value sent.
        { name: "preset", type: "select", default: "x-2", source: { url: `${base}/items?q={q}&preset` } },
      ],
    });
    // (Hosts fields' choices at launch come from a runner: test/integration/choices.test.ts.)
    const form = { id: "1", name: "f", sourceDir: "/nowhere", definition };
    const user = { username: "u" };
    expect(await choicesAtLaunch(form, { q: "x", pick: "x-1", hidden: "y", empty: "" }, user)).toEqual({
      pick: [
        { value: "x-1", label: "x-1" },
        { value: "x-2", label: "x-2" },
      ],
      preset: [
        { value: "x-1", label: "x-1" },
        { value: "x-2", label: "x-2" },
      ],
    });
    expect(requests.sort()).toEqual(["/items?q=x", "/items?q=x&preset"]);
    const error = (await choicesAtLaunch(form, { pick: "x-1" }, user).catch((e: unknown) => e)) as DomainError;
    expect(error).toMatchObject({ code: "validation_failed", message: "the choices of Pick cannot be checked: fill in q first" });
    expect(error.fields).toEqual({ pick: "fill in q first" });
  });
});

describe("a source's placeholders in a definition", () => {
  it("must name another field whose value may travel in a URL", () => {
    const parsed = formDefinitionSchema.safeParse({
      name: "f",
      title: "F",
      playbook: "p.yml",
      fields: [
        { name: "secret", type: "password" },
        { name: "pick", type: "select", source: { url: "http://h/{secret}/{nope}/{pick}" } },
        { name: "host", type: "select", source: { url: "https://{pick}.example.test/x" } },
      ],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => i.message)).toEqual([
      "names {secret}, a password field, whose value cannot be put in a URL",
      "names {nope}, which is not another field of the form",
      "names {pick}, which is not another field of the form",
      "placeholders may only be in the path or query, not the host",
    ]);
  });
});

describe("hosts fields' choices", () => {
  const list = JSON.parse(fs.readFileSync(path.join(FIXTURES, "inventory-list/choices-inventory.json"), "utf8")) as unknown;

  it("reads every host and every group but all and ungrouped, sorted", () => {
    expect(inventoryNames(list)).toEqual({
      hosts: ["db1.example.test", "localhost", "web1.example.test", "web2.example.test"],
      groups: ["db", "prod", "web"],
    });
  });

  it("offers hosts, groups, or groups then hosts with labels saying which", () => {
    const names = inventoryNames(list);
    expect(hostFieldChoices(names, "groups").map((c) => c.value)).toEqual(["db", "prod", "web"]);
    expect(hostFieldChoices(names, "hosts")[0]).toEqual({ value: "db1.example.test", label: "db1.example.test" });
    const both = hostFieldChoices(names, "both");
    expect(both[0]).toEqual({ value: "db", label: "group: db" });
    expect(both[3]).toEqual({ value: "db1.example.test", label: "host: db1.example.test" });
    expect(both).toHaveLength(7);
  });

  // Under bubblewrap (as the RTE runs it where bwrap works) and without it (RTE_PLAYBOOK_SANDBOX=off).
  it.for([{ sandboxed: false }, { sandboxed: fs.existsSync("/usr/bin/bwrap") }])(
    "a runner lists the form's inventory in a folder of its files (fetched by hash) and answers only the names; an unreadable one says why (sandboxed: $sandboxed)",
    { timeout: 60_000 },
    async ({ sandboxed }) => {
      const work = fs.mkdtempSync(path.join(os.tmpdir(), "playform-inventory-rte-"));
      const env = loadRteEnv({
        RTE_TOKEN: "t",
        APP_URL: "http://127.0.0.1:1",
        RTE_WORK_DIR: work,
        RTE_SPOOL_PATH: path.join(work, "spool"),
        RTE_STATE_PATH: path.join(work, "state"),
        RTE_JOBS_DIR: path.join(work, "jobs"),
      });
      const deps = (dir: string) => {
        const manifest = buildManifest(dir);
        const asked: string[] = [];
        return {
          manifest,
          asked,
          deps: {
            env,
            cache: new FileCache(env.cacheDir),
            playbookUser: null,
            sandboxed,
            environment: defaultEnvironment(env.ANSIBLE_PLAYBOOK),
            fetchFiles: async (hashes: string[]) => {
              asked.push(...hashes);
              return new Map(
                (await readLaunchedFiles(dir, manifest, hashes)).map((f) => [f.sha256, Buffer.from(f.contentBase64, "base64")]),
              );
            },
          },
        };
      };
      // As the RTE's start leaves it when playbooks run as another user: a listing never tightens it.
      fs.mkdirSync(env.jobsDir, { mode: 0o711 });
      fs.chmodSync(env.jobsDir, 0o711);
      try {
        const dir = path.join(FIXTURES, "forms-choices/choices");
        const good = deps(dir);
        const answer = await listInventory({ v: 1, listId: "l1", inventory: "inventory.ini", manifest: good.manifest }, good.deps);
        expect(answer).toEqual({
          ok: true,
          ...inventoryNames(JSON.parse(fs.readFileSync(path.join(FIXTURES, "inventory-list/choices-inventory.json"), "utf8"))),
        });
        expect(good.asked.length).toBe(new Set(good.manifest.map((e) => e.sha256)).size);
        // Its folder is gone once answered, and the jobs folder is as it was.
        expect(fs.readdirSync(env.jobsDir)).toEqual([]);
        expect(fs.statSync(env.jobsDir).mode & 0o777).toBe(0o711);

        const bad = fs.mkdtempSync(path.join(os.tmpdir(), "playform-inventory-"));
        fs.writeFileSync(path.join(bad, "broken.ini"), "this is [ not\n[[x\n");
        const broken = deps(bad);
        const refused = await listInventory({ v: 1, listId: "l2", inventory: "broken.ini", manifest: broken.manifest }, broken.deps);
        expect(refused).toMatchObject({
          ok: false,
          error: expect.stringMatching(/^ansible-inventory cannot read it: .*No inventory was parsed/),
        });
        // Only a file (or folder) of the form's.
        expect(
          await listInventory({ v: 1, listId: "l3", inventory: "../etc/hosts", manifest: broken.manifest }, broken.deps),
        ).toMatchObject({ ok: false });
        fs.rmSync(bad, { recursive: true });
      } finally {
        fs.rmSync(work, { recursive: true, force: true });
      }
    },
  );

  // An inventory plugin that leaves two children running: one in the listing's process group,
  // one in a session of its own (setsid). Each has a marker in its command line.
  it.for([{ sandboxed: false }, { sandboxed: fs.existsSync("/usr/bin/bwrap") }])(
    "ends what an inventory plugin left running once the listing has ended (sandboxed: $sandboxed)",
    { timeout: 60_000 },
    async ({ sandboxed }) => {
      const marker = `playform-listing-leftover-${process.pid}-${Date.now()}`;
      const work = fs.mkdtempSync(path.join(os.tmpdir(), "playform-inventory-rte-"));
      const form = fs.mkdtempSync(path.join(os.tmpdir(), "playform-inventory-form-"));
      const living = (which: string) =>
        fs
          .readdirSync("/proc")
          .filter((name) => /^\d+$/.test(name))
          .filter((pid) => {
            try {
              const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
              if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return false;
              return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(`${marker}-${which}`);
            } catch {
              return false;
            }
          })
          .map(Number);
      try {
        fs.mkdirSync(path.join(form, "plugins"));
        fs.writeFileSync(
          path.join(form, "ansible.cfg"),
          "[defaults]\ninventory_plugins = ./plugins\n[inventory]\nenable_plugins = leave\n",
        );
        fs.writeFileSync(path.join(form, "leave.yml"), "plugin: leave\n");
        fs.writeFileSync(
          path.join(form, "plugins/leave.py"),
          [
            "import subprocess, sys, time",
            "from ansible.plugins.inventory import BaseInventoryPlugin",
            'DOCUMENTATION = """\nname: leave\nshort_description: leaves children running\ndescription: a test plugin\n"""',
            "class InventoryModule(BaseInventoryPlugin):",
            '    NAME = "leave"',
            "    def verify_file(self, path):",
            '        return path.endswith("leave.yml")',
            "    def parse(self, inventory, loader, path, cache=True):",
            "        super().parse(inventory, loader, path, cache)",
            "        quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)",
            `        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "${marker}-group"], **quiet)`,
            `        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "${marker}-session"], start_new_session=True, **quiet)`,
            "        time.sleep(0.5)",
            '        inventory.add_host("web1.example.test")',
            "",
          ].join("\n"),
        );
        const env = loadRteEnv({
          RTE_TOKEN: "t",
          RTE_WORK_DIR: work,
          RTE_SPOOL_PATH: path.join(work, "spool"),
          RTE_STATE_PATH: path.join(work, "state"),
          RTE_JOBS_DIR: path.join(work, "jobs"),
        });
        fs.mkdirSync(env.jobsDir, { mode: 0o700 });
        const manifest = buildManifest(form);
        const answer = await listInventory(
          { v: 1, listId: "l1", inventory: "leave.yml", manifest },
          {
            env,
            cache: new FileCache(env.cacheDir),
            playbookUser: null,
            sandboxed,
            environment: defaultEnvironment(env.ANSIBLE_PLAYBOOK),
            fetchFiles: async (hashes: string[]) =>
              new Map((await readLaunchedFiles(form, manifest, hashes)).map((f) => [f.sha256, Buffer.from(f.contentBase64, "base64")])),
          },
        );
        expect(answer).toEqual({ ok: true, hosts: ["web1.example.test"], groups: [] });
        const deadline = Date.now() + 3_000;
        const settled = () => living("group").length === 0 && (!sandboxed || living("session").length === 0);
        while (!settled() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
        // The process group ends with the listing; under bwrap the whole pid namespace does, a
        // child in a session of its own included. Without bwrap that one outlives it (as a
        // playbook's would: RTE_PLAYBOOK_SANDBOX=off says so at start).
        expect(living("group")).toEqual([]);
        if (sandboxed) expect(living("session")).toEqual([]);
      } finally {
        for (const pid of [...living("group"), ...living("session")]) process.kill(pid, "SIGKILL");
        fs.rmSync(work, { recursive: true, force: true });
        fs.rmSync(form, { recursive: true, force: true });
      }
    },
  );
});
