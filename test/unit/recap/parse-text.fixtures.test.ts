/**
 * Every fixture (a real ansible-playbook log + the recap computed from Ansible's events) must
 * parse to exactly its expected JSON, whole and fed in awkward chunk sizes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRecapText, RecapTextParser } from "../../../server/recap/parse-text";
import type { Recap } from "../../../server/recap/types";

const ROOT = join(import.meta.dirname, "../../fixtures/recap");
const cases = readdirSync(ROOT, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

function load(name: string): { text: string; expected: Recap } {
  return {
    text: readFileSync(join(ROOT, name, "log.txt"), "utf8"),
    expected: JSON.parse(readFileSync(join(ROOT, name, "expected.json"), "utf8")) as Recap,
  };
}

function inChunks(text: string, size: number): Recap {
  const parser = new RecapTextParser();
  for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size));
  return parser.finish();
}

describe("recap fixtures", () => {
  it("has fixtures to check", () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });

  it.each(cases)("%s parses to expected.json", (name) => {
    const { text, expected } = load(name);
    expect(parseRecapText(text)).toEqual(expected);
  });

  it.each(cases)("%s gives the same result in chunks of 1, 7 and 4096 characters", (name) => {
    const { text, expected } = load(name);
    for (const size of [1, 7, 4096]) expect(inChunks(text, size)).toEqual(expected);
  });

  it.each(cases)("%s gives the same result with CRLF line ends split between CR and LF", (name) => {
    const { text, expected } = load(name);
    const crlf = text.replace(/\n/g, "\r\n");
    expect(parseRecapText(crlf)).toEqual(expected);
    // Cut right after every CR so each LF arrives at the start of the next chunk.
    const parser = new RecapTextParser();
    let start = 0;
    for (let cr = crlf.indexOf("\r"); cr >= 0; cr = crlf.indexOf("\r", cr + 1)) {
      parser.push(crlf.slice(start, cr + 1));
      start = cr + 1;
    }
    parser.push(crlf.slice(start));
    expect(parser.finish()).toEqual(expected);
  });
});
