/**
 * The lab example ships its collection as a tarball (server/forms/examples/lab/vendor), built
 * from server/forms/lab-collection by scripts/build-lab-collection.sh: the tarball must hold
 * exactly the source's files, or the runner installs something else than the repository shows.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SOURCE = path.join(ROOT, "server/forms/lab-collection/playform/lab");
const LAB = path.join(ROOT, "server/forms/examples/lab");

function files(dir: string, base = dir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full, base) : [path.relative(base, full)];
  });
}

describe("the lab example's collection", () => {
  it("is in its tarball exactly as in its source (rebuild with scripts/build-lab-collection.sh)", () => {
    const { version } = parseYaml(fs.readFileSync(path.join(SOURCE, "galaxy.yml"), "utf8")) as { version: string };
    const tarball = path.join(LAB, "vendor", `playform-lab-${version}.tar.gz`);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "playform-lab-collection-"));
    try {
      execFileSync("tar", ["xzf", tarball, "-C", out]);
      const shipped = files(out).filter((f) => f !== "MANIFEST.json" && f !== "FILES.json");
      const source = files(SOURCE).filter((f) => f !== "galaxy.yml");
      expect(shipped.sort()).toEqual(source.sort());
      for (const file of source)
        expect(fs.readFileSync(path.join(out, file), "utf8"), file).toBe(fs.readFileSync(path.join(SOURCE, file), "utf8"));
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it("is the tarball the form's requirements.yml names", () => {
    const requirements = parseYaml(fs.readFileSync(path.join(LAB, "requirements.yml"), "utf8")) as {
      collections: { name: string; type: string }[];
    };
    expect(requirements.collections).toHaveLength(1);
    expect(requirements.collections[0]!.type).toBe("file");
    expect(fs.existsSync(path.join(LAB, requirements.collections[0]!.name))).toBe(true);
  });
});
