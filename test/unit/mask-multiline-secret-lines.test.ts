/**
 * Third attack on issue 34 items 1-3: a multi-line secret variable (a "secret" credential
 * holding a TLS private key, the usual way a key reaches a `copy`/`template` task). It is masked
 * whole only (buildJobSecrets: an ssh credential's key is also masked line by line, a secret
 * variable is not), so any output that prints its lines with something before each one leaks
 * the whole key: `--diff` (the form's diff option) shows a `copy content=` as "+" lines, and
 * `cat -A`, `sed 's/^/  /'`, a YAML block under a different indentation do the same.
 */
import { describe, expect, it } from "vitest";
import { buildJobSecrets } from "../../server/credentials/bundle";
import { createMasker } from "../../server/security/mask";

const KEY = [
  "-----BEGIN PRIVATE KEY-----",
  "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
  "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu",
  "NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ",
  "-----END PRIVATE KEY-----",
].join("\n");

function maskerFor(value: string) {
  const { maskValues } = buildJobSecrets([{ name: "tls", kind: "secret", payload: { variables: { tls_key: value } } }], {});
  return createMasker(maskValues);
}

describe("a multi-line secret variable", () => {
  it("masks a secret variable's key lines in the --diff of a copy task (each line after a +)", () => {
    const mask = maskerFor(`${KEY}\n`);
    const diff = `--- before\n+++ after: /etc/ssl/private/site.key\n@@ -0,0 +1,5 @@\n${KEY.split("\n")
      .map((l) => `+${l}`)
      .join("\n")}\n\nchanged: [web1]\n`;
    const out = mask(diff);
    expect(out, out).not.toContain("MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu");
  });

  it("masks a secret variable's key printed under another indentation (a YAML block, sed 's/^/  /')", () => {
    const mask = maskerFor(`${KEY}\n`);
    const out = mask(
      `    key: |\n${KEY.split("\n")
        .map((l) => `      ${l}`)
        .join("\n")}\n`,
    );
    expect(out, out).not.toContain("MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu");
  });
});
