import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../../server/security/password";

describe("hashPassword / verifyPassword", () => {
  it("stores scrypt$N$r$p$salt$hash with a 16-byte salt and a 64-byte key", async () => {
    const stored = await hashPassword("correct horse battery staple");
    const parts = stored.split("$");
    expect(parts.slice(0, 4)).toEqual(["scrypt", "16384", "8", "1"]);
    expect(parts).toHaveLength(6);
    expect(Buffer.from(parts[4]!, "base64")).toHaveLength(16);
    expect(Buffer.from(parts[5]!, "base64")).toHaveLength(64);
    expect(stored).not.toContain("correct horse");
  });

  it("verifies the right password and refuses a wrong one", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(await verifyPassword("correct horse battery staple", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", stored)).toBe(false);
    expect(await verifyPassword("Correct horse battery staple", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
  });

  it("salts: the same password hashes differently, and both verify", async () => {
    const a = await hashPassword("same password");
    const b = await hashPassword("same password");
    expect(a).not.toBe(b);
    expect(await verifyPassword("same password", a)).toBe(true);
    expect(await verifyPassword("same password", b)).toBe(true);
  });

  it("answers false for stored hashes of another shape", async () => {
    for (const stored of [
      "",
      "garbage",
      "scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==",
      "bcrypt$16384$8$1$c2FsdA==$aGFzaA==",
      "$2b$10$abcdefghijklmnopqrstuu",
      // A well-formed hash whose key has the wrong length.
      "scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaA==",
    ]) {
      expect(await verifyPassword("pw", stored), JSON.stringify(stored)).toBe(false);
    }
  });

  it("answers false (does not throw) when the stored scrypt parameters are malformed", async () => {
    // A corrupted or hand-edited row must make the login fail like a wrong password, not
    // reject the promise (which the login route turns into a 500).
    for (const stored of [
      "scrypt$abc$8$1$c2FsdA==$aGFzaA==", // N not a number
      "scrypt$3$8$1$c2FsdA==$aGFzaA==", // N not a power of two
      "scrypt$1048576$8$1$c2FsdA==$aGFzaA==", // N beyond the memory limit
    ]) {
      await expect(verifyPassword("pw", stored), stored).resolves.toBe(false);
    }
  });
});
