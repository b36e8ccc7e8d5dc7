import { describe, expect, it } from "vitest";
import { SealError, openForJob, sealForJob } from "../../server/security/seal";

const TOKEN = "pfr_runner-token-for-tests";
const PLAINTEXT = JSON.stringify({ vaultPassword: "vault-pässword", maskValues: ["s3cret"], hiddenExtravars: { ansible_password: "x" } });

function openError(token: string, jobId: number, sealed: string): unknown {
  try {
    openForJob(token, jobId, sealed);
  } catch (error) {
    return error;
  }
  return null;
}

describe("sealForJob / openForJob", () => {
  it("opens what was sealed for the same token and job", () => {
    expect(openForJob(TOKEN, 42, sealForJob(TOKEN, 42, PLAINTEXT))).toBe(PLAINTEXT);
    expect(openForJob(TOKEN, 1, sealForJob(TOKEN, 1, ""))).toBe("");
  });

  it("has the documented layout: version 1 | 12-byte IV | 16-byte tag | ciphertext, fresh IV each time", () => {
    const a = Buffer.from(sealForJob(TOKEN, 7, "hello"), "base64");
    const b = Buffer.from(sealForJob(TOKEN, 7, "hello"), "base64");
    expect(a[0]).toBe(1);
    expect(a.length).toBe(1 + 12 + 16 + 5);
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(a.subarray(29).toString("utf8")).not.toBe("hello");
  });

  it("refuses another runner's token", () => {
    const sealed = sealForJob(TOKEN, 42, PLAINTEXT);
    const error = openError(`${TOKEN}x`, 42, sealed);
    expect(error).toBeInstanceOf(SealError);
    expect((error as Error).message).toBe("sealed bundle cannot be opened with this runner's token for this job");
  });

  it("refuses the bundle for another job id", () => {
    const sealed = sealForJob(TOKEN, 42, PLAINTEXT);
    expect(openError(TOKEN, 43, sealed)).toBeInstanceOf(SealError);
    expect(openError(TOKEN, 4, sealed)).toBeInstanceOf(SealError);
  });

  it("refuses the bundle when any single byte is changed (version, IV, tag, ciphertext)", () => {
    const raw = Buffer.from(sealForJob(TOKEN, 42, "short secret"), "base64");
    for (let index = 0; index < raw.length; index++) {
      const changed = Buffer.from(raw);
      changed[index] = changed[index]! ^ 0x01;
      const error = openError(TOKEN, 42, changed.toString("base64"));
      expect(error, `byte ${index} changed`).toBeInstanceOf(SealError);
    }
  });

  it("refuses a truncated or extended bundle", () => {
    const raw = Buffer.from(sealForJob(TOKEN, 42, "short secret"), "base64");
    expect(openError(TOKEN, 42, raw.subarray(0, raw.length - 1).toString("base64"))).toBeInstanceOf(SealError);
    expect(openError(TOKEN, 42, Buffer.concat([raw, Buffer.from([0])]).toString("base64"))).toBeInstanceOf(SealError);
  });

  it("refuses garbage with a SealError, never another exception", () => {
    for (const garbage of [
      "",
      "not base64 at all!",
      "AQ==",
      Buffer.alloc(64, 1).toString("base64"),
      Buffer.alloc(64, 2).toString("base64"),
    ]) {
      expect(openError(TOKEN, 42, garbage), JSON.stringify(garbage)).toBeInstanceOf(SealError);
    }
    expect((openError(TOKEN, 42, "AQ==") as Error).message).toBe("sealed bundle has an unknown format");
  });
});
