/**
 * Uploaded files for route handlers that take one. As text: the request body as it is (any
 * text type or application/octet-stream), or one file of a multipart/form-data body, decoded as
 * it streams in and handed on chunk by chunk, never held whole. As bytes: one file part of a
 * multipart body, streamed (multipartFile).
 */
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import busboy from "busboy";
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
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  // A JSON document read as a log is no log: an empty answer would look like a run of nothing.
  if (type !== "" && !type.startsWith("text/") && type !== "application/octet-stream" && type !== "multipart/form-data") {
    throw new DomainError(
      "unsupported_media_type",
      `send the ${name} as text (text/plain or another text/ type), application/octet-stream or a multipart/form-data field \`${name}\`, not ${type}`,
    );
  }
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

/** One file part of a multipart body (see multipartFile). */
export interface MultipartFile {
  filename: string;
  mimeType: string | null;
  stream: Readable;
}

/**
 * The file part `name` of a multipart/form-data body, as a stream: busboy parses the body as
 * it arrives, so the caller reads the file chunk by chunk and may stop at any point (the HTTP
 * entry then drains and closes the rest). Other parts are skipped. 415 for another body type,
 * 400 for a malformed body or one without that part.
 */
export async function multipartFile(request: Request, name: string): Promise<MultipartFile> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new DomainError("unsupported_media_type", `send the file as multipart/form-data, in a part named \`${name}\``);
  }
  if (!request.body) throw new DomainError("bad_request", `send the file in a multipart part named \`${name}\``);
  let parser: busboy.Busboy;
  try {
    // Browsers send a part's file name as raw UTF-8; busboy's default (latin1) turned "ñame€.txt" into "Ã±ameâ\u0082¬.txt".
    parser = busboy({
      headers: { "content-type": contentType },
      defParamCharset: "utf8",
      limits: { files: 10, fields: 20, fieldSize: 64 * 1024, headerPairs: 20 },
    });
  } catch (error) {
    throw new DomainError("bad_request", `malformed multipart body: ${error instanceof Error ? error.message : String(error)}`);
  }
  const source = Readable.fromWeb(request.body as WebReadableStream<Uint8Array>);
  return new Promise((resolve, reject) => {
    let found: Readable | null = null;
    parser.on("file", (field, stream, info) => {
      if (field !== name || found) {
        stream.resume();
        return;
      }
      found = stream;
      resolve({ filename: info.filename ?? "", mimeType: info.mimeType || null, stream });
    });
    const fail = (error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      // Before the part: the answer; inside it: the reader of the file sees the error.
      if (found) found.destroy(new Error(reason));
      else reject(new DomainError("bad_request", `malformed multipart body: ${reason}`));
    };
    parser.on("error", fail);
    source.on("error", fail);
    parser.on("close", () => reject(new DomainError("bad_request", `multipart body has no file part named \`${name}\``)));
    source.pipe(parser);
  });
}
