/**
 * What POST /api/recap (app/api/recap/route.ts) does with a log, as the Analyse log page sends
 * it: the request body streamed in (text/plain, the page's raw body; or multipart) through
 * uploadedText() into parseRecapChunks(…, { partial: true }). Every fixture, log files and
 * callbacks included, gives its expected recap, plus the partial_* fields when it is incomplete
 * (killed_sigint: what the Analyse log page shows of a run cut short); the route itself
 * (sign-in, limits) is tested in test/integration/recap-api.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { uploadedText } from "../../../server/api/upload";
import { parseRecapChunks } from "../../../server/recap/parse-text";
import type { Recap } from "../../../server/recap/types";

const ROOT = join(import.meta.dirname, "../../fixtures/recap");
const cases = readdirSync(ROOT, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

/** A request whose body arrives in pieces of `size` bytes, cutting UTF-8 characters and CRLFs anywhere. */
function streamedRequest(bytes: Uint8Array, size: number): Request {
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + size));
      at += size;
    },
  });
  return new Request("http://playform.test/api/recap", {
    method: "POST",
    headers: { "content-type": "text/plain; charset=utf-8" },
    body,
    duplex: "half",
  } as RequestInit);
}

describe("POST /api/recap's reading of an uploaded log", () => {
  it.each(cases)("%s", async (name) => {
    const log = readFileSync(join(ROOT, name, "log.txt"));
    const expected: unknown = JSON.parse(readFileSync(join(ROOT, name, "expected.json"), "utf8"));
    const upload = (request: Request) =>
      parseRecapChunks(uploadedText(request, { name: "log", maxBytes: 512 * 1024 * 1024 }), { partial: true });
    const streamed = await upload(streamedRequest(log, 997));
    const { partial_hosts, partial_elapsed_sec, partial_slowest_tasks, ...contract } = streamed;
    expect(contract).toEqual(expected);
    const incomplete = streamed.status === "incomplete";
    for (const field of [partial_hosts, partial_elapsed_sec, partial_slowest_tasks]) expect(field !== undefined).toBe(incomplete);
    const form = new FormData();
    form.set("log", new Blob([log]), "ansible.log");
    expect(await upload(new Request("http://playform.test/api/recap", { method: "POST", body: form }))).toEqual(streamed);
  });

  it("killed_sigint: the hosts and timings it printed before it was killed", async () => {
    const log = readFileSync(join(ROOT, "killed_sigint", "log.txt"));
    const recap: Recap = await parseRecapChunks(uploadedText(streamedRequest(log, 997), { name: "log", maxBytes: 1 << 20 }), {
      partial: true,
    });
    expect(recap.status).toBe("incomplete");
    expect(recap.partial_hosts?.map((r) => [r.host, r.ok, r.changed])).toEqual([
      ["node1", 2, 2],
      ["node2", 2, 2],
    ]);
    expect(recap.partial_elapsed_sec).toBe(4);
    expect(recap.partial_slowest_tasks?.[0]).toEqual({ task: "Write maintenance flag", seconds: 2.87 });
  });
});
