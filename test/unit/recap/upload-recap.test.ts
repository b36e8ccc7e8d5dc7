/**
 * What POST /api/recap (app/api/recap/route.ts) does with a log, as the Analyse log page sends
 * it: the request body streamed in (text/plain, the page's raw body; or multipart) through
 * uploadedText() into parseRecapChunks(). Every fixture, log files and callbacks included, gives
 * its expected recap; the route itself (sign-in, limits) is tested in test/integration/recap-api.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { uploadedText } from "../../../server/api/upload";
import { parseRecapChunks } from "../../../server/recap/parse-text";

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
    const upload = (request: Request) => parseRecapChunks(uploadedText(request, { name: "log", maxBytes: 512 * 1024 * 1024 }));
    expect(await upload(streamedRequest(log, 997))).toEqual(expected);
    const form = new FormData();
    form.set("log", new Blob([log]), "ansible.log");
    expect(await upload(new Request("http://playform.test/api/recap", { method: "POST", body: form }))).toEqual(expected);
  });
});
