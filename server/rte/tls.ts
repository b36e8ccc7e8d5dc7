/**
 * The TLS pair of an inbound RTE: RTE_TLS_CERT/RTE_TLS_KEY when given, else a self-signed pair
 * generated once (selfsigned) and kept in the state folder (0600 files in a 0700 folder), so the
 * certificate the app pinned at approval is the one presented at every later start.
 */
import { X509Certificate } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { generate } from "selfsigned";
import type { RteEnv } from "./env";
import { PRIVATE_FILE_MODE, ensurePrivateDir, makePrivate } from "./private-fs";

export interface TlsPair {
  cert: string;
  key: string;
  /** SHA-256 of the certificate (DER), as Node prints it: upper-case hex pairs joined by ":". */
  fingerprint: string;
  /** Where it came from, for the log. */
  source: string;
}

export const GENERATED_CERT = "tls-cert.pem";
export const GENERATED_KEY = "tls-key.pem";

export function certFingerprint(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}

/** Whether this RTE serves https (inbound with an https RTE_ADDRESS). */
export function usesTls(env: Pick<RteEnv, "RTE_MODE" | "RTE_ADDRESS">): boolean {
  return env.RTE_MODE === "inbound" && env.RTE_ADDRESS !== undefined && new URL(env.RTE_ADDRESS).protocol === "https:";
}

export async function loadTlsPair(env: RteEnv, log: (line: string) => void): Promise<TlsPair> {
  if (env.RTE_TLS_CERT && env.RTE_TLS_KEY) {
    const cert = fs.readFileSync(env.RTE_TLS_CERT, "utf8");
    const key = fs.readFileSync(env.RTE_TLS_KEY, "utf8");
    return { cert, key, fingerprint: certFingerprint(cert), source: env.RTE_TLS_CERT };
  }
  ensurePrivateDir(env.stateDir);
  const certFile = path.join(env.stateDir, GENERATED_CERT);
  const keyFile = path.join(env.stateDir, GENERATED_KEY);
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) {
    makePrivate(certFile);
    makePrivate(keyFile);
    const cert = fs.readFileSync(certFile, "utf8");
    return { cert, key: fs.readFileSync(keyFile, "utf8"), fingerprint: certFingerprint(cert), source: certFile };
  }
  const host = new URL(env.RTE_ADDRESS ?? "https://localhost").hostname.replace(/^\[|\]$/g, "");
  const isIp = /^[\d.]+$/.test(host) || host.includes(":");
  const pems = await generate([{ name: "commonName", value: host }], {
    keyType: "ec",
    curve: "P-256",
    algorithm: "sha256",
    notAfterDate: new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: [isIp ? { type: 7, ip: host } : { type: 2, value: host }] },
    ],
  });
  // Key first, each by rename: a start interrupted half-way leaves no certificate without its key.
  writePrivate(keyFile, pems.private);
  writePrivate(certFile, pems.cert);
  const fingerprint = certFingerprint(pems.cert);
  log(`generated a self-signed TLS certificate for ${host} in ${certFile} (SHA-256 ${fingerprint}); it is reused at every start`);
  return { cert: pems.cert, key: pems.private, fingerprint, source: certFile };
}

function writePrivate(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: PRIVATE_FILE_MODE });
  fs.renameSync(tmp, file);
}
