/**
 * Events/text parity through the whole chain: the app sends the job to a real RTE process,
 * which runs ansible-playbook with Playform's callback plugin; the app stores the text output
 * and the events; the recap from each must agree field by field.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let token: string;

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/playbooks") } });
  token = await adminToken(app);
});
afterAll(async () => {
  await app?.stop();
});

async function get(url: string) {
  const response = await fetch(`${app.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status, url).toBe(200);
  return (await response.json()) as any;
}

it("gives the same recap from the stored events as from the stored text", async () => {
  const launch = await fetch(`${app.url}/api/jobs`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ form: "recap-parity", values: {} }),
  });
  expect(launch.status).toBe(201);
  const { id } = (await launch.json()) as { id: number };
  let job;
  for (const deadline = Date.now() + 150_000; ; ) {
    job = (await get(`/api/jobs/${id}`)).job;
    if (!["queued", "running"].includes(job.status)) break;
    if (Date.now() > deadline) throw new Error(`job ${id} did not finish:\n${app.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // The fixture has failing and unreachable hosts on purpose.
  expect(job.status).toBe("failed");
  expect(job.exitCode).toBe(4);

  const events = await get(`/api/jobs/${id}/recap?source=events`);
  const text = await get(`/api/jobs/${id}/recap?source=text`);
  for (const field of ["plays", "hosts", "changed_tasks", "ignored_failures", "failed_tasks", "unreachable_hosts", "status"]) {
    expect(events[field], field).toEqual(text[field]);
  }
  // What the fixture guarantees, so that agreement on empty lists cannot pass.
  expect(text.status).toBe("failed");
  expect(text.hosts.map((h: { host: string }) => h.host)).toEqual(["dead1", "dead2", "node1", "node2", "node3"]);
  expect(text.unreachable_hosts.length).toBeGreaterThan(0);
  expect(text.ignored_failures.length).toBeGreaterThan(0);
  expect(text.failed_tasks.length).toBeGreaterThan(0);
  expect(text.changed_tasks.length).toBeGreaterThan(3);

  expect(Math.abs(events.elapsed_sec - text.elapsed_sec)).toBeLessThanOrEqual(1);
  // Timings: the plugin and profile_tasks read the clock separately; names must match, and
  // each time within profile_tasks' rounding plus scheduling jitter on a loaded 2-core machine.
  const textTimes = new Map<string, number[]>();
  for (const t of text.slowest_tasks as { task: string; seconds: number }[]) textTimes.set(t.task, [...(textTimes.get(t.task) ?? []), t.seconds]);
  const shared = (events.slowest_tasks as { task: string; seconds: number }[]).filter((t) => textTimes.has(t.task));
  // Near-ties at the top-20 cut may differ; everything above the cut must be there.
  expect(shared.length).toBeGreaterThanOrEqual(Math.min(events.slowest_tasks.length, text.slowest_tasks.length) - 2);
  for (const t of shared) {
    const closest = Math.min(...textTimes.get(t.task)!.map((s) => Math.abs(s - t.seconds)));
    expect(closest, t.task).toBeLessThanOrEqual(0.1);
  }
});
