/**
 * Reading a private key when an admin stores it, so that a key with garbage between its
 * BEGIN and END markers, or one cut short, is refused with the reason instead of failing at
 * the first job's ssh login.
 *
 * PEM keys (PKCS#1, SEC1, PKCS#8) are read by node's crypto. OpenSSH keys
 * (`-----BEGIN OPENSSH PRIVATE KEY-----`, what ssh-keygen writes by default) are not, so their
 * binary format (PROTOCOL.key of OpenSSH) is read here: "openssh-key-v1\0", the cipher, the kdf
 * and its options, the number of keys (1), the public key, then the private section: two equal
 * check numbers, the key's type and fields, a comment and padding 1, 2, 3… The private half
 * must match the public one (an ed25519 or ECDSA public key is derived again from the private
 * key, an RSA modulus must be p × q). Only unencrypted keys get here: encrypted ones are
 * refused before (kinds.ts), and the private section of those cannot be read without the
 * passphrase. Pure: no file, no process (ssh-keygen is not on every app machine).
 */
import { createECDH, createPrivateKey, createPublicKey } from "node:crypto";

const MAGIC = "openssh-key-v1\0";

class Unreadable extends Error {}

/** A reader of the SSH wire encoding (RFC 4251): uint32, string, mpint. */
class Reader {
  private offset = 0;
  constructor(
    private readonly buffer: Buffer,
    private readonly what: string,
  ) {}

  get left(): number {
    return this.buffer.length - this.offset;
  }

  uint32(): number {
    if (this.left < 4) throw new Unreadable(`${this.what} ends early: the key was cut short`);
    const value = this.buffer.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  bytes(length: number): Buffer {
    if (this.left < length) throw new Unreadable(`${this.what} ends early: the key was cut short`);
    const value = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  string(): Buffer {
    return this.bytes(this.uint32());
  }

  text(): string {
    return this.string().toString("latin1");
  }

  /** An mpint as a non-negative big integer (leading zero bytes allowed). */
  mpint(): bigint {
    const raw = this.string();
    return raw.length === 0 ? 0n : BigInt(`0x${raw.toString("hex")}`);
  }

  rest(): Buffer {
    return this.bytes(this.left);
  }
}

const EC_CURVES: Record<string, { curve: string; size: number }> = {
  nistp256: { curve: "prime256v1", size: 32 },
  nistp384: { curve: "secp384r1", size: 48 },
  nistp521: { curve: "secp521r1", size: 66 },
};

/** The PKCS#8 prefix of an ed25519 private key: the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

function ed25519PublicOf(seed: Buffer): Buffer {
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  // The SPKI of an ed25519 key ends with its 32-byte public key.
  return createPublicKey(key).export({ format: "der", type: "spki" }).subarray(-32);
}

/**
 * Reads one key's fields from the private section; compares them with the public key blob.
 * Types this does not know (newer ones) are taken as they are: their fields cannot be told apart.
 */
function checkKeyFields(type: string, section: Reader, publicBlob: Reader): boolean {
  const mismatch = () => new Unreadable("its private and public halves do not belong together: the key was changed");
  if (type === "ssh-ed25519") {
    const pub = section.string();
    const priv = section.string();
    if (pub.length !== 32 || priv.length !== 64) throw new Unreadable("its ed25519 key has the wrong length: the key was changed");
    if (!priv.subarray(32).equals(pub) || !publicBlob.string().equals(pub)) throw mismatch();
    if (!ed25519PublicOf(priv.subarray(0, 32)).equals(pub)) throw mismatch();
    return true;
  }
  if (type === "ssh-rsa") {
    const [n, e] = [section.mpint(), section.mpint()];
    const [d, , p, q] = [section.mpint(), section.mpint(), section.mpint(), section.mpint()];
    if (n === 0n || e === 0n || d === 0n || p * q !== n) throw mismatch();
    if (publicBlob.mpint() !== e || publicBlob.mpint() !== n) throw mismatch();
    return true;
  }
  if (type.startsWith("ecdsa-sha2-")) {
    const curveName = section.text();
    const point = section.string();
    const d = section.string();
    const curve = EC_CURVES[curveName];
    if (!curve || type !== `ecdsa-sha2-${curveName}`) throw new Unreadable(`its curve ${JSON.stringify(curveName)} is not one ssh uses`);
    // An mpint may carry a leading zero byte; createECDH wants the scalar at the curve's size.
    const scalar = d.subarray(Math.max(0, d.length - curve.size));
    const padded = Buffer.concat([Buffer.alloc(curve.size - scalar.length), scalar]);
    let derived: Buffer;
    try {
      const ecdh = createECDH(curve.curve);
      ecdh.setPrivateKey(padded);
      derived = ecdh.getPublicKey();
    } catch {
      throw mismatch();
    }
    if (!derived.equals(point) || publicBlob.text() !== curveName || !publicBlob.string().equals(point)) throw mismatch();
    return true;
  }
  if (type === "ssh-dss") {
    for (let i = 0; i < 5; i++) section.mpint();
    return true;
  }
  if (type === "sk-ssh-ed25519@openssh.com" || type === "sk-ecdsa-sha2-nistp256@openssh.com") {
    if (type.startsWith("sk-ecdsa")) section.string(); // curve
    const pub = section.string();
    section.string(); // application
    section.bytes(1); // flags
    section.string(); // key handle
    section.string(); // reserved
    if (type.startsWith("sk-ecdsa")) publicBlob.string();
    if (!publicBlob.string().equals(pub)) throw mismatch();
    return true;
  }
  return false;
}

function readOpenSshKey(body: Buffer): void {
  if (body.length < MAGIC.length || body.subarray(0, MAGIC.length).toString("latin1") !== MAGIC) {
    throw new Unreadable("the text between the markers is not an OpenSSH key (it does not start with openssh-key-v1)");
  }
  const key = new Reader(body.subarray(MAGIC.length), "the key");
  const cipher = key.text();
  key.text(); // kdf name
  key.string(); // kdf options
  const count = key.uint32();
  if (count !== 1) throw new Unreadable(`it holds ${count} keys; a key file holds one`);
  const publicBlob = new Reader(key.string(), "its public key");
  const privateSection = key.string();
  if (key.left !== 0) throw new Unreadable("there is more after the key: the key was changed");
  if (cipher !== "none") return; // encrypted: refused by the caller, which says why
  const publicType = publicBlob.text();
  const section = new Reader(privateSection, "its private key");
  if (section.uint32() !== section.uint32()) {
    throw new Unreadable("its check numbers differ: the key was changed or is damaged");
  }
  const type = section.text();
  if (type !== publicType) throw new Unreadable(`its private key is ${type} but its public key ${publicType}: the key was changed`);
  if (!checkKeyFields(type, section, publicBlob)) return;
  section.string(); // comment
  const padding = section.rest();
  if (padding.length >= 8 || privateSection.length % 8 !== 0 || padding.some((byte, i) => byte !== i + 1)) {
    throw new Unreadable("its padding is wrong: the key was changed or is damaged");
  }
}

/**
 * Null when `key` (normalised, unencrypted, between matching markers: see kinds.ts) is a
 * private key that reads whole and consistent; else what is wrong, for the admin.
 */
export function privateKeyProblem(key: string, bodyLines: readonly string[]): string | null {
  const base64 = bodyLines.join("");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) {
    return "the text between the BEGIN and END lines is not base64: copy the whole key file again";
  }
  try {
    if (key.startsWith("-----BEGIN OPENSSH PRIVATE KEY-----")) readOpenSshKey(Buffer.from(base64, "base64"));
    else createPrivateKey({ key, format: "pem" });
    return null;
  } catch (error) {
    if (error instanceof Unreadable) return error.message;
    return "the text between the BEGIN and END lines is not a private key of that format: it was changed or cut short; copy the whole key file again";
  }
}
