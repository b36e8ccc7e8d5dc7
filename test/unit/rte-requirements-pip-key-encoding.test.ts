/**
 * A requirements.txt that pip reads otherwise than the plain rule (attack 8 on issue 34): a PEP 263
 * coding declaration makes pip decode it as UTF-7, where `+AAo-` is a line break and
 * `1.0.0+AAo---find-links+AD0-.+AC8-wheels` a version and `--find-links=./wheels`; `-i=URL` is the
 * short option `-i` with the value `=URL`, a folder of the form's when it exists. Either file is
 * not plain: its key holds the form's files (two forms, one wheel each, two keys).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { manifestDigest } from "../../server/rte/requirements";
import { readPipRequirements } from "../../server/rte/requirements-pip";

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
