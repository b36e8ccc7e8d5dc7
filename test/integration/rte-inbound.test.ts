/**
 * Inbound runners (RTE_MODE=inbound) on real parts: the production bundle, a real RTE process
 * listening over https with the certificate it generated, real ansible-playbook, and a TCP proxy
 * (CuttableProxy) between the app and the RTE, which is where the runner's address points.
 *
 * In order: the runner joins with its certificate's fingerprint, an admin approves it (the app
 * pins the fingerprint) and the app connects; a job runs through it with complete output; the
 * link is cut mid-job and nothing is lost or stored twice; the RTE restarted with another key
 * pair is refused with the reason visible through the runners API, until an admin re-pins.
 */
import fs from "node:fs";
import path from "node:path";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InboundHarness, freePort, lineCounts, type InboundRte } from "../support/inbound-rte";

const NAME = "inbound-1";
const LINES = 8;

const h = new InboundHarness(NAME);
const counterLines = Array.from({ length: LINES }, (_, i) => `slow-counter line ${i + 1} of ${LINES}`);
const counterLine = (n: number) => counterLines[n - 1]!;
const counts = (output: string) => lineCounts(output, counterLines).counts;
const launch = () => h.launch("inbound-counter");

beforeAll(() => h.start());
afterAll(() => h.stop());

describe("an inbound runner", () => {
  let rte: InboundRte;
  let fingerprint: string;

  it("joins with its generated certificate's fingerprint, is pinned on approval, and runs a job over https", async () => {
    rte = h.startRte();
    const pending = await h.until("pending runner", async () => (await h.runner())?.status === "pending" && h.runner());
    const certFile = path.join(h.scratch, "state", "tls-cert.pem");
    expect((fs.statSync(certFile).mode & 0o777).toString(8)).toBe("600");
    expect((fs.statSync(path.join(h.scratch, "state", "tls-key.pem")).mode & 0o777).toString(8)).toBe("600");
    fingerprint = new (await import("node:crypto")).X509Certificate(fs.readFileSync(certFile)).fingerprint256;
    expect(pending.mode).toBe("inbound");
    expect(pending.address).toBe(h.address);
    expect(pending.certFingerprint).toBe(fingerprint);
    expect(rte.output()).toContain(fingerprint);

    expect((await h.api("POST", `/api/runners/${pending.id}/approve`)).status).toBe(200);
    const live = await h.until("the app connected to the runner", async () => {
      const r = await h.runner();
      return r?.instances.some((i: any) => i.connected) && r;
    });
    expect(live.certFingerprint).toBe(fingerprint);
    expect(live.certPinnedAt).toBeTruthy();
    expect(live.linkError).toBeNull();
    // Its environments come in rte:environments once the link is up, as an outbound RTE's do.
    const reported = await h.until("the runner's environments report", async () => {
      const r = await h.runner();
      return r?.environments.length > 0 && r;
    });
    expect(reported.environments).toEqual([
      expect.objectContaining({ name: "default", ansibleCore: expect.stringMatching(/^2\./), error: null }),
    ]);
    // The app lists the instance before the RTE hears its answer to rte:hello.
    await h.until("the RTE to see the app's link", async () => /the app connected from .* \(inbound\)/.test(rte.output()));
    // The RTE never connects to the app's socket itself.
    expect(rte.output()).not.toMatch(/connected to http/);

    const id = await launch();
    const job = await h.finished(id);
    expect(job.status).toBe("success");
    expect(job.runner).toBe(NAME);
    expect(counts(h.storedOutput(id))).toEqual(Array(LINES).fill(1));
  }, 180_000);

  it("loses nothing and stores nothing twice when the link is cut mid-job", async () => {
    const id = await launch();
    await h.until("line 2 stored", async () => h.storedOutput(id).includes(counterLine(2)), 60_000);
    h.proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const duringCut = h.storedOutput(id);
    expect(duringCut).not.toContain(counterLine(LINES));
    h.proxy.restore();
    const job = await h.finished(id);
    expect(job.status).toBe("success");
    expect(counts(h.storedOutput(id))).toEqual(Array(LINES).fill(1));
    expect(h.app.output()).toMatch(/link to runner inbound-1 closed/);
  }, 180_000);

  it("refuses another certificate, with the reason in the runners API, until an admin re-pins it", async () => {
    rte.child.kill("SIGTERM");
    await rte.child;
    const other = await generate([{ name: "commonName", value: "127.0.0.1" }], { keyType: "ec", algorithm: "sha256" });
    fs.writeFileSync(path.join(h.scratch, "other-cert.pem"), other.cert);
    fs.writeFileSync(path.join(h.scratch, "other-key.pem"), other.private, { mode: 0o600 });
    const otherFingerprint = new (await import("node:crypto")).X509Certificate(other.cert).fingerprint256;
    rte = h.startRte({ RTE_TLS_CERT: path.join(h.scratch, "other-cert.pem"), RTE_TLS_KEY: path.join(h.scratch, "other-key.pem") });

    const refused = await h.until("the certificate refused", async () => {
      const r = await h.runner();
      return r?.linkError?.includes("not the pinned") && r;
    });
    expect(refused.linkError).toContain(otherFingerprint);
    expect(refused.linkError).toContain(fingerprint);
    expect(refused.presentedFingerprint).toBe(otherFingerprint);
    expect(refused.certFingerprint).toBe(fingerprint);
    expect(refused.instances.some((i: any) => i.connected)).toBe(false);
    // Nothing reached the RTE's socket: it never saw the app.
    expect(rte.output()).not.toMatch(/the app connected from/);

    const repin = await h.api("POST", `/api/runners/${refused.id}/repin`);
    expect(repin.status).toBe(200);
    expect(repin.json.certFingerprint).toBe(otherFingerprint);
    const live = await h.until("connected with the re-pinned certificate", async () => {
      const r = await h.runner();
      return r?.instances.some((i: any) => i.connected) && r.linkError === null && r;
    });
    expect(live.certFingerprint).toBe(otherFingerprint);
    const job = await h.finished(await launch());
    expect(job.status).toBe("success");
  }, 180_000);

  it("over plain http is connected to only once an admin allows it without TLS", async () => {
    const port = await freePort();
    const plain = h.startRte({ RTE_ADDRESS: `http://127.0.0.1:${port}`, PORT: String(port) }, "inbound-plain");
    const pending = await h.until(
      "pending runner",
      async () => (await h.runner("inbound-plain"))?.status === "pending" && h.runner("inbound-plain"),
    );
    expect(pending.certFingerprint).toBeNull();
    expect((await h.api("POST", `/api/runners/${pending.id}/approve`)).status).toBe(200);
    await h.until("the RTE approved and listening", async () => /inbound: listening for the app .* over plain http/.test(plain.output()));
    const refused = await h.until("the reason shown", async () => {
      const r = await h.runner("inbound-plain");
      return r?.linkError?.includes("plain http") && r;
    });
    expect(refused.inboundNoTls).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await h.runner("inbound-plain")).instances.some((i: any) => i.connected)).toBe(false);
    expect(plain.output()).not.toMatch(/the app connected from/);

    expect((await h.api("POST", `/api/runners/${pending.id}/no-tls`)).status).toBe(200);
    const live = await h.until("connected without TLS", async () => {
      const r = await h.runner("inbound-plain");
      return r?.instances.some((i: any) => i.connected) && r.linkError === null && r;
    });
    expect(live.inboundNoTls).toBe(true);
    expect(h.app.output()).toMatch(/connected to runner inbound-plain at http:\/\/127\.0\.0\.1:\d+ \(no TLS, allowed by an admin\)/);
  }, 120_000);
});
