/**
 * Uploaded files as text, for route handlers that take one: the request body as it is (any
 * text type or application/octet-stream), or one file of a multipart/form-data body. The text
 * is decoded as it streams in and handed on chunk by chunk, never held whole.
 */
import { DomainError } from "../errors";

export interface UploadOptions {
  /** What the upload is ("log"): the multipart field it is taken from, and the word in error messages. */
  name: string;
  /** Larger uploads are refused (413): before reading when Content-Length says so, else once that much has come. */
  maxBytes: number;
}

/**
 * The uploaded text, chunk by chunk. A multipart body gives its field `name`, else its first
 * file. Throws (as the chunks are read) 413 past maxBytes, 400 for a missing or empty upload.
 */
export async function* uploadedText(request: Request, { name, maxBytes }: UploadOptions): AsyncGenerator<string> {
  const tooLarge = () => new DomainError("payload_too_large", `${name} is larger than ${maxBytes} bytes`);
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) throw tooLarge();
  const body = await uploadedBody(request, name);
  if (!body) throw new DomainError("bad_request", `send the ${name} as the request body`);
  const decoder = new TextDecoder("utf-8");
  let bytes = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) throw tooLarge();
    yield decoder.decode(chunk, { stream: true });
  }
  yield decoder.decode();
  if (bytes === 0) throw new DomainError("bad_request", `the ${name} is empty`);
}

async function uploadedBody(request: Request, name: string): Promise<ReadableStream<Uint8Array> | null> {
  if (!(request.headers.get("content-type") ?? "").startsWith("multipart/form-data")) return request.body;
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw new DomainError("bad_request", "malformed multipart body");
  }
  const field = form.get(name) ?? [...form.values()].find((v): v is File => typeof v !== "string");
  if (field === null || field === undefined) throw new DomainError("bad_request", `multipart body has no \`${name}\` field or file`);
  return typeof field === "string" ? new Blob([field]).stream() : field.stream();
}
