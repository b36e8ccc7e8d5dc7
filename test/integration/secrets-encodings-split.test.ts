/**
 * A password with ", \ and é through a real run, printed in the encodings that escaped masking
 * before (test/fixtures/forms-rte-faults/secret-encodings): its base64 wrapped at 64 and 76
 * columns after prefixes of 30 to 60 bytes (raw lines, a command's stdout with \n, stdout_lines),
 * a base64'd .dockerconfigjson holding it JSON-escaped (ensure_ascii and raw UTF-8), URL-encoded
 * JSON, lowercase %xx, and the password, its HTTP Basic header and its JSON written to the
 * playbook's stdout in two halves with a pause of four batch intervals between them. Nothing of
 * it is in the spool (read while the link to the app is cut), in the stored chunks (output,
 * events, log, end) or in the output the API serves.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defaultJobsDir } from "../../server/rte/env";
import { ROOT, RteHarness } from "../support/rte-harness";

const PASSWORD = 'Tq"8\\vé-Jz4/mR+w';

const h = new RteHarness(path.join(ROOT, "test/fixtures/forms-rte-faults"), "faults");

beforeAll(() => h.start());
afterAll(() => h.stop());

/** Python's json.dumps of the password, without the quotes: ensure_ascii (\u00e9) and raw UTF-8. */
const JSON_FORMS = [String.raw`Tq\"8\\v\u00e9-Jz4/mR+w`, 'Tq\\"8\\\\vé-Jz4/mR+w'];

/** Every string of a parsed JSON value, joined by line ends. */
function strings(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(strings).join("\n");
  if (value !== null && typeof value === "object")
    return Object.entries(value)
      .flatMap(([k, v]) => [k, strings(v)])
      .join("\n");
  return "";
}

/**
 * What must not appear, as plain strings: the password, each half of it, its JSON-escaped
 * forms, and the URL encodings of those (compared in lowercase, so %c3 and %C3 both count).
 */
function plainForms(): string[] {
  const half = [...PASSWORD].length / 2;
  const forms = [PASSWORD, [...PASSWORD].slice(0, half).join(""), [...PASSWORD].slice(half).join(""), ...JSON_FORMS];
  for (const form of [PASSWORD, ...JSON_FORMS]) {
    const uri = encodeURIComponent(form);
    forms.push(uri, uri.replace(/%2F/g, "/"));
  }
  return forms;
}

/**
 * The base64 of the password's bytes, and of its JSON-escaped forms, at each alignment: every
 * 8 characters of the stable middle (standard and URL-safe), sought in the text with the line
 * breaks of wrapped base64 taken out, so a piece left on either side of a break counts.
 */
function base64Windows(): string[] {
  const windows: string[] = [];
  for (const form of [PASSWORD, ...JSON_FORMS]) {
    const bytes = Buffer.from(form, "utf8");
    for (let skip = 0; skip < 3; skip++) {
      const middle = bytes.subarray(skip, skip + 3 * Math.floor((bytes.length - skip) / 3)).toString("base64");
      for (let at = 0; at + 8 <= middle.length; at += 4) {
        const window = middle.slice(at, at + 8);
        windows.push(window, window.replace(/\+/g, "-").replace(/\//g, "_"));
      }
    }
  }
  return windows;
}

function leaksIn(text: string): string[] {
  const lower = text.toLowerCase();
  // Without line breaks and colours (ESC, or \u001b in the spool's JSON).
  // eslint-disable-next-line no-control-regex -- ansible-playbook colours its output: ANSI escapes start with ESC
  const joined = text.replace(/(?:\x1b|\\u001b)\[[0-9;]*m/g, "").replace(/",\r?\n *"|\r?\n *(?:- )?|\\r\\n|\\n/g, "");
  return [
    ...plainForms().filter((form) => lower.includes(form.toLowerCase())),
    ...base64Windows()
      .filter((window) => joined.includes(window))
      .map((window) => `base64 ${window}`),
  ];
}

it("masks wrapped base64, a base64'd dockerconfigjson, URL-encoded JSON and a password written in two halves: output, events, spool, database", async () => {
  expect(base64Windows().length).toBeGreaterThan(30);
  const dirs = h.dirs("enc");
  const proxy = h.proxy();
  const rte = h.startRte({ instanceId: "enc-0", appUrl: await proxy.listen(), ...dirs });
  await h.waitForRteOutput(rte, /connected to http/);

  const gate = path.join(h.scratch, "enc-gate");
  const id = await h.api.launch("secret-encodings", { api_key: PASSWORD, gate });
  const itemsFile = path.join(dirs.spoolDir, String(id), "items.jsonl");
  const jobDir = path.join(defaultJobsDir(dirs.workDir), String(id));
  await h.waitUntil(
    "the playbook to wait at its gate",
    () => fs.existsSync(path.join(jobDir, `.playform_hidden_extravars_${id}.json`)) && fs.existsSync(path.join(jobDir, "playbook.yml")),
    60_000,
  );
  proxy.cut();
  fs.writeFileSync(gate, "go");
  await h.waitUntil(
    "the job's end in the spool",
    () => fs.existsSync(itemsFile) && fs.readFileSync(itemsFile, "utf8").includes('"kind":"end"'),
    120_000,
  );
  const spoolFile = fs.readFileSync(itemsFile, "utf8");
  const spooled = spoolFile
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => strings(JSON.parse(line)))
    .join("\n");
  expect(spooled).toContain("********");
  expect(leaksIn(spoolFile)).toEqual([]);
  expect(leaksIn(spooled)).toEqual([]);

  proxy.restore();
  const job = await h.api.waitForEnd(id, 60_000);
  const output = await h.api.output(id);
  expect(job.status, output).toBe("success");
  expect(leaksIn(output)).toEqual([]);
  // Everything arrived, masked: the halves joined, the wrapped lines with a mask on each side.
  expect(output).toContain("split: ******** end\n");
  expect(output).toMatch(/split: dXNlcj[A-Za-z0-9+/]?\*{8}={0,2} end\n/);
  expect(output).toMatch(/split: \*{8} end\n/);
  expect(output).toMatch(/\*{8}\n\*{8}/);
  expect(output).toContain("lower: ********\n");
  expect(output).toContain('"written"');

  const chunks = h.storedChunks(id);
  const stored = chunks.map((c) => `${c.text ?? ""}\n${c.data ? strings(JSON.parse(c.data)) : ""}`).join("\n");
  expect(stored).toContain("********");
  expect(leaksIn(stored)).toEqual([]);
  expect(leaksIn(chunks.map((c) => `${c.text ?? ""}\n${c.data ?? ""}`).join("\n"))).toEqual([]);
});
