/**
 * The base64 of a secret inside a longer string (`{{ ('user:' ~ pw) | b64encode }}`, the HTTP
 * Basic header) through a real run: a playbook prints prefix + password + suffix, base64 and
 * base64url, for prefixes of 0 to 7 bytes and suffixes of 0 to 3, in debug messages, loop labels
 * (so the events carry them) and a command's stdout. No run of base64 characters that encodes
 * only the password's bytes is in the spool (read while the link to the app is cut), in the
 * stored chunks (output, events, log, end) or in the output the API serves.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defaultJobsDir } from "../../server/rte/env";
import { ROOT, RteHarness } from "../support/rte-harness";

// The password of the issue: quotes, a backslash, non-ASCII, and "+/" that base64 itself uses.
const PASSWORD = "Pw\"Q\\u'é€ 7&=+/z";
const PREFIXES = ["", "u", "us", "use", "user", "user:", "xuser:", "xyuser:", "ä€"];
const SUFFIXES = ["", "!", "@h", "@ho"];

const h = new RteHarness(path.join(ROOT, "test/fixtures/forms-rte-faults"), "faults");

beforeAll(() => h.start());
afterAll(() => h.stop());

const urlSafe = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/**
 * What must not appear: for each of the three alignments of the password in base64's 3-byte
 * groups, the encoding of its whole groups (the "stable middle", the same whatever the prefix
 * and suffix), standard and URL-safe; and the whole base64 of every string the playbook prints.
 */
function leakForms(): Map<string, string> {
  const bytes = Buffer.from(PASSWORD, "utf8");
  const forms = new Map<string, string>();
  for (let skip = 0; skip < 3; skip++) {
    const whole = bytes.subarray(skip, skip + 3 * Math.floor((bytes.length - skip) / 3));
    const middle = whole.toString("base64");
    forms.set(middle, `the password's bytes ${skip}..${skip + whole.length} in base64`);
    forms.set(urlSafe(middle), `the password's bytes ${skip}..${skip + whole.length} in base64url`);
  }
  for (const prefix of PREFIXES) {
    for (const suffix of SUFFIXES) {
      const b64 = Buffer.from(prefix + PASSWORD + suffix, "utf8").toString("base64");
      forms.set(b64, `base64 of ${JSON.stringify(prefix)} + password + ${JSON.stringify(suffix)}`);
      forms.set(urlSafe(b64), `base64url of ${JSON.stringify(prefix)} + password + ${JSON.stringify(suffix)}`);
    }
  }
  return forms;
}

function leaksIn(text: string, forms: Map<string, string>): string[] {
  return [...forms].filter(([form]) => text.includes(form)).map(([, what]) => what);
}

it("masks the base64 and base64url of a password after any prefix and before any suffix: output, events, spool, database", async () => {
  const forms = leakForms();
  // Sanity: the prefixes cover 0 to 7 bytes, and so every alignment of the secret's start.
  expect(new Set(PREFIXES.map((p) => Buffer.byteLength(p)))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7]));
  expect(forms.size).toBeGreaterThan(60);

  const dirs = h.dirs("b64");
  const proxy = h.proxy();
  const rte = h.startRte({ instanceId: "b64-0", appUrl: await proxy.listen(), ...dirs });
  await h.waitForRteOutput(rte, /connected to http/);

  const gate = path.join(h.scratch, "b64-gate");
  const id = await h.api.launch("secret-base64", { api_key: PASSWORD, gate });
  const itemsFile = path.join(dirs.spoolDir, String(id), "items.jsonl");
  // The playbook waits at its gate: cut the link, so from now on every item stays in the
  // spool, unacknowledged, where we read it.
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
  const spooled = fs.readFileSync(itemsFile, "utf8");
  expect(spooled).toContain("********");
  expect(leaksIn(spooled, forms)).toEqual([]);

  proxy.restore();
  const job = await h.api.waitForEnd(id, 60_000);
  const output = await h.api.output(id);
  expect(job.status, output).toBe("success");
  // Every printed string arrived, each with its secret part masked: 36 messages and 36 labels
  // of each encoding, the header, and the command's 36 lines (printed raw and as its result).
  expect(output).toMatch(/Authorization: Basic dXNlcj[A-Za-z0-9+/]?\*{8}/);
  expect(output.match(/"msg": "std [A-Za-z0-9+/]*\*{8}[A-Za-z0-9+/]*={0,2}"/g)).toHaveLength(36);
  expect(output.match(/"msg": "url [A-Za-z0-9_-]*\*{8}[A-Za-z0-9_-]*"/g)).toHaveLength(36);
  expect(output.match(/\(item=[A-Za-z0-9+/_-]*\*{8}[A-Za-z0-9+/_-]*={0,2}\)/g)).toHaveLength(72);
  expect(leaksIn(output, forms)).toEqual([]);

  // The database: every stored chunk of the job (output, log, events, end).
  const chunks = h.storedChunks(id);
  const stored = chunks.map((c) => `${c.text ?? ""}\n${c.data ?? ""}`).join("\n");
  expect(stored).toContain("********");
  expect(leaksIn(stored, forms)).toEqual([]);
  // The events carry the labels, masked.
  const events = chunks.filter((c) => c.kind === "events").flatMap((c) => JSON.parse(c.data!) as Record<string, unknown>[]);
  const labels = events.filter((e) => e.type === "item_result" && typeof e.item === "string" && e.item.includes("********"));
  expect(labels.length).toBeGreaterThanOrEqual(72);
});
