/**
 * Secrets at rest on the RTE and in the database: a job whose playbook prints a password value
 * and secret variables as loop items, labels (base64), task names, `debug var=`, `to_json`,
 * `to_json | to_json`, `to_nice_json`, `to_nice_yaml` and Python's repr. While the job runs and
 * after, no form of any secret is in the spool (read while the link to the app is cut, so
 * every item stays there), and none is in the stored chunks (output, events, log, end); every
 * file the RTE keeps is 0600 in 0700 folders.
 *
 * The forms a secret takes when printed come from Python itself (the same generator as the
 * masker's unit test, test/fixtures/mask/generate-encodings.py), plus base64 and URL encoding.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defaultJobsDir } from "../../server/rte/env";
import { ROOT, RteHarness } from "../support/rte-harness";

const PASSWORD = "pä\"ss\\wörd'it-CoreAlpha7391";
const VARIABLES = {
  api_token: "tab\there-ünï-CoreBravo5824",
  // The secrets of the issue, as reported.
  s_quote: 'pa"ss\\word',
  s_unicode: "pässwörd-ünïcode",
  s_apostrophe: "it's-a-secret",
  s_tab: "tab\there",
};
const SECRETS = [PASSWORD, ...Object.values(VARIABLES)];

const h = new RteHarness(path.join(ROOT, "test/fixtures/forms-rte-faults"), "faults");

beforeAll(() => h.start());
afterAll(() => h.stop());

/** Every form of each secret a playbook can print, computed by Python (and base64, URL). */
function leakForms(): Map<string, string> {
  const script = [
    "import json, runpy, sys",
    "m = runpy.run_path(sys.argv[1])",
    "print(json.dumps({s: m['spans'](s) for s in json.loads(sys.argv[2])}))",
  ].join("\n");
  const generator = path.join(ROOT, "test/fixtures/mask/generate-encodings.py");
  const spans = JSON.parse(execFileSync("python3", ["-c", script, generator, JSON.stringify(SECRETS)], { encoding: "utf8" })) as Record<
    string,
    Record<string, string>
  >;
  const forms = new Map<string, string>();
  for (const secret of SECRETS) {
    forms.set(secret, `${JSON.stringify(secret)} raw`);
    for (const [form, text] of Object.entries(spans[secret]!)) forms.set(text, `${JSON.stringify(secret)} as ${form}`);
    const base64 = Buffer.from(secret).toString("base64");
    forms.set(base64, `${JSON.stringify(secret)} base64`);
    forms.set(base64.replace(/=+$/, ""), `${JSON.stringify(secret)} base64 unpadded`);
    forms.set(base64.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_"), `${JSON.stringify(secret)} URL-safe base64`);
    forms.set(encodeURIComponent(secret), `${JSON.stringify(secret)} URL-encoded`);
  }
  return forms;
}

function leaksIn(text: string, forms: Map<string, string>): string[] {
  return [...forms].filter(([form]) => text.includes(form)).map(([, what]) => what);
}

/** Every file and folder below dir whose mode is not 0600 (files) or 0700 (folders). */
function looseModes(dir: string): string[] {
  const loose: string[] = [];
  const walk = (current: string) => {
    const mode = fs.statSync(current).mode & 0o777;
    if (fs.statSync(current).isDirectory()) {
      if (mode !== 0o700) loose.push(`${current} ${mode.toString(8)}`);
      for (const entry of fs.readdirSync(current)) walk(path.join(current, entry));
    } else if (mode !== 0o600) loose.push(`${current} ${mode.toString(8)}`);
  };
  walk(dir);
  return loose;
}

function spoolText(spoolDir: string): string {
  let text = "";
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else text += fs.readFileSync(full, "utf8");
    }
  };
  walk(spoolDir);
  return text;
}

it("keeps every form of every secret out of the spool and the stored job, and every RTE file private", async () => {
  const forms = leakForms();
  // Sanity: the escaped forms really differ from the raw ones (JSON inside JSON, repr, \\u00e4).
  expect(forms.size).toBeGreaterThan(SECRETS.length * 8);
  expect([...forms.keys()]).toContain(String.raw`pa\\\\\\\"ss\\\\\\\\word`);
  expect([...forms.keys()]).toContain(String.raw`p\\u00e4ssw\\u00f6rd-\\u00fcn\\u00efcode`);
  expect([...forms.keys()]).toContain("it''s-a-secret");

  const created = await h.api.call("POST", "/api/credentials", { json: { name: "faults-secrets", kind: "secret", variables: VARIABLES } });
  expect(created.status, JSON.stringify(created.json)).toBe(201);

  const dirs = h.dirs("secrets");
  const proxy = h.proxy();
  const rte = h.startRte({ instanceId: "secrets-0", appUrl: await proxy.listen(), ...dirs });
  await h.waitForRteOutput(rte, /connected to http/);

  const gate = path.join(h.scratch, "secrets-gate");
  const id = await h.api.launch("secret-leaks", { api_key: PASSWORD, gate });
  const jobDir = path.join(defaultJobsDir(dirs.workDir), String(id));
  const hidden = path.join(jobDir, `.playform_hidden_extravars_${id}.json`);
  await h.waitUntil(
    "the playbook to wait at its gate",
    () => fs.existsSync(hidden) && fs.existsSync(path.join(jobDir, "playbook.yml")),
    60_000,
  );

  // While the job runs: the extravars, the job's files, the cache, the record, the spool.
  expect(looseModes(dirs.workDir)).toEqual([]);
  expect(looseModes(dirs.spoolDir)).toEqual([]);
  expect(fs.statSync(hidden).mode & 0o777).toBe(0o600);

  // Cut the link: from now on every item stays in the spool, unacknowledged, where we read it.
  proxy.cut();
  fs.writeFileSync(gate, "go");
  const itemsFile = path.join(dirs.spoolDir, String(id), "items.jsonl");
  await h.waitUntil(
    "the job's end in the spool",
    () => fs.existsSync(itemsFile) && fs.readFileSync(itemsFile, "utf8").includes('"kind":"end"'),
    120_000,
  );
  const spooled = spoolText(dirs.spoolDir);
  expect(spooled).toContain("********");
  expect(leaksIn(spooled, forms)).toEqual([]);
  expect(looseModes(dirs.spoolDir)).toEqual([]);
  expect(looseModes(dirs.workDir)).toEqual([]);

  proxy.restore();
  const job = await h.api.waitForEnd(id, 60_000);
  const output = await h.api.output(id);
  expect(job.status, output).toBe("success");
  // What the playbook printed arrived, masked: the loop, the labels, the task name, each encoding.
  expect(output).toContain("item is ********");
  expect(output).toContain("(item=********)");
  expect(output).toContain("TASK [A task named after ********]");
  expect(output).toMatch(/"msg": "\\"\\\\\\"\*{8}\\\\\\"\\""/); // to_json | to_json
  expect(output).toContain("['********']"); // repr

  // The database: every stored chunk of the job (output, log, events, end), read through
  // better-sqlite3, which sees the -wal file too.
  const chunks = h.storedChunks(id);
  expect(chunks.map((c) => c.kind)).toContain("events");
  const stored = chunks.map((c) => `${c.text ?? ""}\n${c.data ?? ""}`).join("\n");
  expect(stored).toContain("********");
  expect(leaksIn(stored, forms)).toEqual([]);
  // The events kept their shape: items and labels are there, masked.
  const events = chunks.filter((c) => c.kind === "events").flatMap((c) => JSON.parse(c.data!) as Record<string, unknown>[]);
  expect(events.filter((e) => e.type === "item_result" && e.item === "********").length).toBeGreaterThanOrEqual(SECRETS.length);

  // Nothing of the job is left on the runner.
  expect(fs.existsSync(hidden)).toBe(false);
  expect(fs.existsSync(jobDir)).toBe(false);
});
