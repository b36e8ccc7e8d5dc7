import { NextResponse } from "next/server";
import { DomainError } from "@/server/errors";
import { requireUser, route } from "@/server/api/route";
import { RecapTextParser } from "@/server/recap/parse-text";

export const dynamic = "force-dynamic";

/** Larger uploads are refused before reading: the parser streams, but the request has limits. */
const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

/**
 * POST /api/recap: the recap of an uploaded ansible-playbook log (a run Playform did not
 * start). The body is the log as text (any text/* or application/octet-stream type), or
 * multipart/form-data with the log in a file field (`log`, else the first file).
 * A text body is parsed as it streams in, never held whole.
 */
export const POST = route(async (request: Request) => {
  await requireUser(request);
  const length = Number(request.headers.get("content-length") ?? "0");
  if (length > MAX_UPLOAD_BYTES) throw new DomainError("payload_too_large", `log is larger than ${MAX_UPLOAD_BYTES} bytes`);
  const type = request.headers.get("content-type") ?? "";
  const parser = new RecapTextParser();
  let body: ReadableStream<Uint8Array> | null;
  if (type.startsWith("multipart/form-data")) {
    let form: FormData;
    try {
      form = await request.formData();
    } catch {
      throw new DomainError("bad_request", "malformed multipart body");
    }
    const field = form.get("log") ?? [...form.values()].find((v): v is File => typeof v !== "string");
    if (field === null || field === undefined) throw new DomainError("bad_request", "multipart body has no `log` field or file");
    body = typeof field === "string" ? new Blob([field]).stream() : field.stream();
  } else {
    body = request.body;
  }
  if (!body) throw new DomainError("bad_request", "send the log as the request body");
  const decoder = new TextDecoder("utf-8");
  let bytes = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > MAX_UPLOAD_BYTES) throw new DomainError("payload_too_large", `log is larger than ${MAX_UPLOAD_BYTES} bytes`);
    parser.push(decoder.decode(chunk, { stream: true }));
  }
  parser.push(decoder.decode());
  if (bytes === 0) throw new DomainError("bad_request", "the log is empty");
  return NextResponse.json(parser.finish());
});
