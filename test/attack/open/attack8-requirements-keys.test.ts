/**
 * Attack 8 on issue 34, unit level: requirements files whose meaning depends on the form's files
 * while their cache key leaves those files out.
 *
 * - requirements.txt with a PEP 263 coding declaration: pip decodes it (auto_decode) as UTF-7,
 *   where `+AAo-` is a line break; isPlainPipRequirements reads the bytes as UTF-8, where
 *   `1.0.0+AAo---find-links+AD0-.+AC8-wheels` is a version. pip reads `--find-links=./wheels`.
 * - requirements.yml naming a collection folder or a role tarball of the form without `./` or a
 *   tarball extension (`- poisoncoll`, `- name: poisoncoll`, `src: poisonrole`): ansible-galaxy
 *   installs them from the job folder (checked by hand with ansible-core 2.14), the key's
 *   local paths leave them out (collectionLocalPath, roleLocalPath).
 *
 * - a collection entry written with YAML 1.1's merge key (`- <<: {name: ./poisoncoll, type: dir}`):
 *   ansible-galaxy (PyYAML) installs ./poisoncoll (checked by hand), the yaml package (YAML 1.2)
 *   reads `{"<<": {...}}`, an entry without a name.
 *
 * - `-i=https://x/simple`: optparse's value of the short option `-i` is `=https://x/simple`,
 *   which pip reads as the form's folder `=https:/x/simple` when it exists.
 *
 * Fails today: each pair of forms gets one key.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { manifestDigest, readJobRequirements } from "../../../server/rte/requirements";
import { readPipRequirements } from "../../../server/rte/requirements-pip";

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

describe("requirements.txt decoded by its coding declaration", () => {
  const context = { environment: "default", ansible: "2.14.18", python: "3.11.2", indexUrl: null, findLinks: null };
  const keyOf = (text: string, wheel: string) => {
    const dir = job({ "requirements.txt": text });
    const manifest = [
      { path: "requirements.txt", sha256: "r" },
      { path: "playbook.yml", sha256: "p" },
      { path: "wheels/playform_poison-1.0.0-py3-none-any.whl", sha256: wheel },
    ];
    return readPipRequirements(dir, "requirements.txt", context, (relative) => manifestDigest(manifest, relative)).key;
  };

  it.each([
    ["a UTF-7 line break in a version", "# -*- coding: utf-7 -*-\n--no-index\nplayform-poison==1.0.0+AAo---find-links+AD0-.+AC8-wheels\n"],
    ["the declaration on the second line", "\n# vim: set fileencoding=utf-7 :\nplayform-poison==1.0.0+AAo--e+ACA-.+AC8-wheels+AC8-pkg\n"],
    [
      "in an index URL",
      "# coding=utf-7\n--no-index\n-i https://pypi.example/simple+AAo---find-links+AD0-.+AC8-wheels\nplayform-poison==1.0.0\n",
    ],
  ])("%s: the key holds the form's files", (_, text) => {
    expect(keyOf(text, "attacker")).not.toBe(keyOf(text, "victim"));
  });

  // Not a coding declaration: -i is a short option, its value is "=https://x/simple", a path of the form when it exists.
  it("-i=URL, whose value pip reads as a local folder: the key holds the form's files", () => {
    const text = "-i=https://x/simple\nplayform-poison==1.0.0\n";
    expect(keyOf(text, "attacker")).not.toBe(keyOf(text, "victim"));
  });
});

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
