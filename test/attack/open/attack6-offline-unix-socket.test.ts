/**
 * Attack 6 on issue 34: `sandbox: {network: false}` (bwrap --unshare-net) takes the loopback
 * and the abstract Unix sockets away, but not the Unix sockets in the runner's file system:
 * `--ro-bind / /` shows them, and connect() needs no write to the mount. A form without network
 * still talks to any socket of the runner its user may open: a database's
 * (/run/postgresql/.s.PGSQL.5432), docker's, a service's. docs/security.md: "a loopback of its
 * own", sandbox-fs.test.ts "reaches no port of the runner". Here the test's own socket, open
 * to everyone, in a 0755 folder under /var/lib (a runner's service would be under /run).
 * Fixture: test/fixtures/forms-attack6/offline-socket.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../../support/playform";
import { ROOT } from "../../support/rte-harness";

let app: RunningPlayform;
let api: ApiClient;
const base = fs.mkdtempSync("/var/lib/playform-attack6-");
const socketPath = path.join(base, "service.sock");
const abstractName = `playform-attack6-${process.pid}`;

beforeAll(async () => {
  fs.chmodSync(base, 0o755);
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-attack6") } });
  api = apiClient(app, await adminToken(app));
}, 120_000);
afterAll(async () => {
  await app?.stop();
  fs.rmSync(base, { recursive: true, force: true });
});

async function serve(address: string): Promise<net.Server> {
  const server = net.createServer((socket) => socket.end("HELLO-FROM-THE-RUNNER\n"));
  await new Promise<void>((resolve) => server.listen(address, resolve));
  return server;
}

it("a form with sandbox: {network: false} reaches no Unix socket of the runner", async () => {
  expect(app.output()).toMatch(/pid namespace of their own \(bubblewrap\)/);
  const onDisk = await serve(socketPath);
  fs.chmodSync(socketPath, 0o777);
  const abstract = await serve(`\0${abstractName}`);
  try {
    const job = await api.waitForEnd(await api.launch("offline-socket", { socket_path: socketPath, abstract_name: abstractName }));
    const output = await api.output(job.id);
    expect(job.status, output).toBe("success");
    // The network namespace holds: the abstract socket is the runner's network namespace's.
    expect(output, output).toMatch(/REFUSED abstract/);
    // The socket in the file system is reached.
    expect(output, output).not.toContain("HELLO-FROM-THE-RUNNER");
    expect(output).toMatch(/REFUSED path/);
  } finally {
    onDisk.close();
    abstract.close();
  }
}, 120_000);
