/**
 * requirements.yml naming a folder or tarball of the form that ansible-galaxy reads as a path
 * although it is not written as one (attack 8 on issue 34): `- poisoncoll`, `- name: poisoncoll`
 * (a collection folder), `src: poisonrole` / `- poisonrole` (a role tarball without extension),
 * and an entry merged in with YAML 1.1's `<<` (PyYAML merges it, the yaml package does not).
 * None is plainly remote, so each key holds the job's files: two forms, two keys.
 * The requirements.txt cases of the attack: rte-requirements-pip-key-encoding.test.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readJobRequirements } from "../../server/rte/requirements";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function job(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack8-key-"));
  temps.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe("requirements.yml naming a folder or tarball of the form without ./", () => {
  const context = { environment: "default", ansible: "2.14.18", galaxyServer: null };
  const keyOf = (requirements: string, files: Record<string, string>) => {
    const dir = job({ "requirements.yml": requirements, ...files });
    return readJobRequirements(dir, ["requirements.yml"], context).key;
  };
  const collection = (mark: string) => ({
    "poisoncoll/galaxy.yml": "namespace: attack8\nname: poison\nversion: 1.0.0\nreadme: README.md\nauthors: [x]\n",
    "poisoncoll/README.md": "x\n",
    "poisoncoll/plugins/filter/mark.py": `MARK = "${mark}"\n`,
  });

  it.each([
    ["collections: - poisoncoll", "collections:\n  - poisoncoll\n"],
    ["collections: - name: poisoncoll", "collections:\n  - name: poisoncoll\n"],
    // YAML 1.1's merge key: PyYAML (ansible-galaxy) merges it, the yaml package (YAML 1.2) reads a key "<<".
    ["a merge key: - <<: {name: ./poisoncoll, type: dir}", "collections:\n  - <<: {name: ./poisoncoll, type: dir}\n"],
  ])("%s: the key holds the folder", (_, text) => {
    expect(keyOf(text, collection("from-the-attacker-form"))).not.toBe(keyOf(text, collection("from-the-victim-form")));
  });

  it.each([
    ["roles: - src: poisonrole", "roles:\n  - src: poisonrole\n    name: myrole\n"],
    ["roles: - poisonrole", "roles:\n  - poisonrole\n"],
  ])("%s (a tarball without extension): the key holds the file", (_, text) => {
    expect(keyOf(text, { poisonrole: "attacker tarball" })).not.toBe(keyOf(text, { poisonrole: "victim tarball" }));
  });
});
