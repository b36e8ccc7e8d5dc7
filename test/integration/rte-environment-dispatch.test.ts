/**
 * Jobs run in the environment their form names (form.yaml `environment:`, docs/forms.md), on
 * real parts: the production bundle's app and RTE, real ansible-playbook. The RTE is started
 * with RTE_ENVIRONMENTS holding
 *
 * - `default`: the distribution's ansible in /usr/bin;
 * - `wrapped`: a bin folder of wrapper scripts around it that export PLAYFORM_WRAPPER, which
 *   the fixture's playbook prints: the proof of which ansible-playbook ran.
 *
 * A form pinned to `wrapped` runs through the wrapper, one naming none runs in `default`, and
 * each job records the environment with the versions the RTE reported. A form pinned to
 * `missing` stays queued, its statusReason naming the environment, until an RTE offering it
 * connects. The RTE connects before its probe ends and reports in `rte:environments` after.
 */
import { execa } from "execa";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAnsibleVersion } from "../../server/rte/environment-probe";
import { ROOT, RteHarness } from "../support/rte-harness";

const RUNNER = "envrun";
const h = new RteHarness(path.join(ROOT, "test/fixtures/forms-environments"), RUNNER);

beforeAll(() => h.start());
afterAll(() => h.stop());

/** An RTE_ENVIRONMENTS file in the scratch folder, with `wrapped`'s wrapper scripts beside it. */
function environmentsFile(name: string, entries: string[]): string {
  const folder = path.join(h.scratch, "environments");
  const wrapped = path.join(folder, "wrapped", "bin");
  if (!fs.existsSync(wrapped)) {
    fs.mkdirSync(wrapped, { recursive: true });
    for (const program of ["ansible-playbook", "ansible-galaxy", "ansible-inventory"]) {
      fs.writeFileSync(path.join(wrapped, program), `#!/bin/sh\nexport PLAYFORM_WRAPPER=wrapped\nexec /usr/bin/${program} "$@"\n`, {
        mode: 0o755,
      });
    }
  }
  const file = path.join(folder, `${name}.yaml`);
  fs.writeFileSync(file, ["environments:", ...entries].join("\n"));
  return file;
}

describe("jobs run in their form's environment", () => {
  it("a pinned form runs through its environment, an unpinned one in default, a missing one waits for it", async () => {
    const expected = parseAnsibleVersion((await execa("/usr/bin/ansible-playbook", ["--version"])).stdout)!;
    const file = environmentsFile("first", ["  - name: default", "    bin: /usr/bin", "  - name: wrapped", "    bin: wrapped/bin"]);
    const missing = await h.api.launch("env-missing");
    const rte = h.startRte({ instanceId: "envrun-0", ...h.dirs("envrun-0"), env: { RTE_ENVIRONMENTS: file } });
    const wrappedJob = await h.api.launch("env-wrapped");
    const defaultJob = await h.api.launch("env-default");

    const wrapped = await h.api.waitForEnd(wrappedJob);
    expect(wrapped.status, wrapped.statusReason).toBe("success");
    expect(await h.api.output(wrappedJob)).toContain("wrapper=wrapped");
    expect(wrapped.environment).toEqual({ name: "wrapped", ansibleCore: expected.ansibleCore, python: expected.python });
    const unpinned = await h.api.waitForEnd(defaultJob);
    expect(unpinned.status, unpinned.statusReason).toBe("success");
    expect(await h.api.output(defaultJob)).toContain("wrapper=none");
    expect(unpinned.environment).toEqual({ name: "default", ansibleCore: expected.ansibleCore, python: expected.python });

    // The RTE connected first and reported after, in its own message (the app logs the delay).
    expect(h.app.output()).toMatch(/runner envrun instance envrun-0 reported its environments \d+ ms after connecting: default, wrapped/);
    expect(rte.output()).toMatch(/2 environment\(s\) probed in \d+ ms/);

    // No connected instance offers `missing`: it waits, saying so, with what the runner offers.
    const waiting = await h.waitUntil(
      "the missing environment's job to say why it waits",
      async () => {
        const { job } = await h.api.get(`/api/jobs/${missing}`);
        return job.statusReason?.startsWith("no connected runner offers the environment missing") && job;
      },
      30_000,
    );
    expect(waiting.status).toBe("queued");
    expect(waiting.statusReason).toBe("no connected runner offers the environment missing (runner envrun: it offers default, wrapped)");
    expect(waiting.environment).toBeNull();

    // An instance that offers it connects: the job runs there, in it.
    const second = environmentsFile("second", ["  - name: missing", "    bin: /usr/bin"]);
    h.startRte({ instanceId: "envrun-1", ...h.dirs("envrun-1"), env: { RTE_ENVIRONMENTS: second } });
    const ran = await h.api.waitForEnd(missing);
    expect(ran.status, ran.statusReason).toBe("success");
    expect(await h.api.output(missing)).toContain("wrapper=none");
    expect(ran.environment).toEqual({ name: "missing", ansibleCore: expected.ansibleCore, python: expected.python });
  });
});
