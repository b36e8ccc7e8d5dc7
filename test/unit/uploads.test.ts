/**
 * Files uploaded for a form's file fields (server/forms/uploads.ts): the name a file gets, the
 * field's accept and size rules, the store by hash, who may launch with an upload, and the
 * cleanup of uploads no job took and of a job's uploads. The RTE's side: fileVarPaths.
 */
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { multipartFile } from "../../server/api/upload";
import { getDb } from "../../server/data/db";
import { upsertForm } from "../../server/data/forms";
import { uploadStoreDir } from "../../server/data/uploads";
import { createUser } from "../../server/data/users";
import type { Viewer } from "../../server/access/policy";
import { DomainError } from "../../server/errors";
import { findForm, type StoredForm } from "../../server/forms/catalog";
import { formDefinitionSchema } from "../../server/forms/definition";
import {
  UPLOADS_FOLDER,
  acceptsFile,
  deleteJobUploads,
  formatSize,
  markUploadsLaunched,
  normalizeMediaType,
  resolveUploads,
  sanitizeFileName,
  storeUpload,
  sweepUploads,
  uploadContentPath,
  uploadFileVars,
} from "../../server/forms/uploads";
import { fileVarPaths } from "../../server/rte/job-folder";
import { useTempSqliteDatabase } from "../support/temp-db";

describe("sanitizeFileName", () => {
  it.each([
    ["id_rsa.pem", "id_rsa.pem"],
    ["C:\\Users\\me\\key file.pem", "key file.pem"],
    ["../../etc/passwd", "passwd"],
    [".bashrc", "bashrc"],
    ["..", "upload"],
    ["", "upload"],
    ["   ", "upload"],
    // Unicode names are kept ("ñame€.txt" once became "A_amea_.txt"), in NFC.
    ["ñame€.txt", "ñame€.txt"],
    ["clé été.txt", "clé été.txt"],
    ["cle\u0301.txt", "cl\u00e9.txt"],
    ["日本語の鍵.pem", "日本語の鍵.pem"],
    ["🔑 key.pem", "🔑 key.pem"],
    // Only path separators and control characters (and bidi overrides, which disguise an extension) are replaced.
    ["a\u0000b\nc\u007f\u009b.txt", "a_b_c_.txt"],
    ["evil\u202Etxt.exe", "evil_txt.exe"],
    ["$(rm -rf).txt", "$(rm -rf).txt"],
    ["  padded.txt  ", "padded.txt"],
  ])("%j → %j", (raw, expected) => {
    expect(sanitizeFileName(raw)).toBe(expected);
  });

  it("keeps the extension of a long name", () => {
    const name = sanitizeFileName(`${"x".repeat(300)}.pem`);
    expect(name.length).toBeLessThanOrEqual(120);
    expect(name.endsWith(".pem")).toBe(true);
  });

  it("cuts a long Unicode name to whole characters and at most 240 bytes, keeping the extension", () => {
    for (const raw of [`${"€".repeat(200)}.pem`, `${"🔑".repeat(200)}.pem`]) {
      const name = sanitizeFileName(raw);
      expect(Buffer.byteLength(name, "utf8")).toBeLessThanOrEqual(240);
      expect(name.endsWith(".pem")).toBe(true);
      expect(name).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });
});

describe("acceptsFile", () => {
  it("takes anything with an empty list", () => {
    expect(acceptsFile([], "anything.bin", null)).toBe(true);
  });
  it("matches extensions at the end of the name, case aside", () => {
    expect(acceptsFile([".txt", ".pem"], "KEY.PEM", null)).toBe(true);
    expect(acceptsFile([".tar.gz"], "backup.tar.gz", "application/gzip")).toBe(true);
    expect(acceptsFile([".pem"], "key.pem.exe", null)).toBe(false);
    expect(acceptsFile([".pem"], "pem", null)).toBe(false);
  });
  it("matches media types exactly or by wildcard", () => {
    expect(acceptsFile(["text/plain"], "notes", "text/plain")).toBe(true);
    expect(acceptsFile(["image/*"], "photo", "image/png")).toBe(true);
    expect(acceptsFile(["image/*"], "photo", "imagex/png")).toBe(false);
    expect(acceptsFile(["text/plain"], "notes", null)).toBe(false);
  });
  it("reads a part's media type without its parameters", () => {
    expect(normalizeMediaType("Text/Plain; charset=utf-8")).toBe("text/plain");
    expect(normalizeMediaType("")).toBeNull();
    expect(normalizeMediaType("nonsense")).toBeNull();
  });
});

describe("multipartFile", () => {
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    new Request("http://app/api/uploads", { method: "POST", body, headers });
  const read = async (stream: Readable) => {
    let text = "";
    for await (const chunk of stream) text += String(chunk);
    return text;
  };

  it("streams the part named `file`, skipping the others", async () => {
    const form = new FormData();
    form.append("note", "a field first");
    form.append("other", new Blob(["not this one"]), "other.txt");
    form.append("file", new Blob(["the content"], { type: "text/plain" }), "dir/key.txt");
    const file = await multipartFile(post(form), "file");
    expect(file).toMatchObject({ filename: "key.txt", mimeType: "text/plain" });
    expect(await read(file.stream)).toBe("the content");
  });

  it("reads a file name in UTF-8, as browsers send it", async () => {
    const form = new FormData();
    form.append("file", new Blob(["x"]), "ñame€.txt");
    const file = await multipartFile(post(form), "file");
    expect(file.filename).toBe("ñame€.txt");
    expect(sanitizeFileName(file.filename)).toBe("ñame€.txt");
    file.stream.resume();
  });

  it("refuses another body type (415), a body without the part and a malformed one (400)", async () => {
    const status = async (request: Request) => {
      const error = await multipartFile(request, "file").then(
        () => null,
        (e: unknown) => e,
      );
      return error instanceof DomainError ? `${error.code}: ${error.message}` : String(error);
    };
    expect(await status(post("{}", { "content-type": "application/json" }))).toMatch(/^unsupported_media_type: send the file as multipart/);
    const without = new FormData();
    without.append("note", "no file");
    expect(await status(post(without))).toBe("bad_request: multipart body has no file part named `file`");
    expect(await status(post("garbage", { "content-type": "multipart/form-data; boundary=xyz" }))).toMatch(/^bad_request: /);
  });
});

describe("formatSize", () => {
  it.each([
    [512, "512 bytes"],
    [1024, "1 KB"],
    [1536, "1.5 KB"],
    [10 * 1024 * 1024, "10 MB"],
    [Math.round(12.3 * 1024 * 1024), "12.3 MB"],
  ])("%d → %s", (bytes, text) => expect(formatSize(bytes)).toBe(text));
});

describe("fileVarPaths (RTE)", () => {
  const manifest = [{ path: `${UPLOADS_FOLDER}/keyfile/a.pem`, sha256: "a".repeat(64), size: 3 }];
  it("gives each file field the absolute path of its file in the job folder", () => {
    expect(fileVarPaths("/jobs/7", manifest, { keyfile: `${UPLOADS_FOLDER}/keyfile/a.pem` })).toEqual({
      keyfile: `/jobs/7/${UPLOADS_FOLDER}/keyfile/a.pem`,
    });
  });
  it("refuses a path outside the job folder or not in the manifest", () => {
    const escaping = [{ path: "../../etc/passwd", sha256: "a".repeat(64), size: 3 }];
    expect(() => fileVarPaths("/jobs/7", escaping, { keyfile: "../../etc/passwd" })).toThrow(/not a file of this job/);
    expect(() => fileVarPaths("/jobs/7", manifest, { keyfile: "/etc/passwd" })).toThrow(/not a file of this job/);
    expect(() => fileVarPaths("/jobs/7", manifest, { keyfile: `${UPLOADS_FOLDER}/keyfile/b.pem` })).toThrow(/not a file of this job/);
  });
  it("is read back from a manifest by the app (uploadFileVars)", () => {
    expect(uploadFileVars([...manifest, { path: "playbook.yml", sha256: "b".repeat(64), size: 1 }])).toEqual({
      keyfile: `${UPLOADS_FOLDER}/keyfile/a.pem`,
    });
  });
});

describe("the upload store", () => {
  let cleanup: () => Promise<void>;
  let alice: Viewer;
  let bob: Viewer;
  let form: StoredForm;
  const DAY = 24 * 3600 * 1000;

  const send = (
    viewer: Viewer,
    filename: string,
    content: string | Buffer,
    opts: { field?: string; type?: string; declared?: number } = {},
  ) =>
    storeUpload(viewer, "files", opts.field ?? "keyfile", {
      declaredBytes: opts.declared ?? null,
      open: async () => ({ filename, mimeType: opts.type ?? "application/octet-stream", stream: Readable.from([Buffer.from(content)]) }),
    });

  const refusal = async (promise: Promise<unknown>): Promise<DomainError> => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  };

  beforeAll(async () => {
    ({ cleanup } = await useTempSqliteDatabase());
    alice = { ...(await createUser("alice", "password-alice", "admin")), groups: [] };
    bob = { ...(await createUser("bob", "password-bob", "admin")), groups: [] };
    const definition = formDefinitionSchema.parse({
      name: "files",
      title: "Files",
      playbook: "playbook.yml",
      inventories: ["inventory.ini"],
      fields: [
        { name: "keyfile", label: "Key", type: "file", accept: [".txt", ".pem"], maxSize: 1024 },
        { name: "note", label: "Note", type: "text" },
      ],
    });
    await upsertForm(definition, "/nonexistent");
    form = (await findForm("files"))!;
  });
  afterAll(async () => {
    await cleanup();
  });

  it("stores the content once by hash, private, and answers the upload", async () => {
    const first = await send(alice, "id.pem", "secret key");
    expect(first.id).toMatch(/^up_[A-Za-z0-9_-]{16,64}$/);
    expect(first).toMatchObject({ name: "id.pem", size: 10, contentType: "application/octet-stream" });
    const file = uploadContentPath(first.sha256);
    expect(fs.readFileSync(file, "utf8")).toBe("secret key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(uploadStoreDir()).mode & 0o777).toBe(0o700);
    const again = await send(bob, "copy.txt", "secret key");
    expect(again.sha256).toBe(first.sha256);
    expect(again.id).not.toBe(first.id);
    expect(fs.readdirSync(uploadStoreDir()).filter((name) => name.startsWith(".tmp-"))).toEqual([]);
  });

  it("refuses a file over maxSize while it streams, and a Content-Length over it before reading", async () => {
    const streamed = await refusal(send(alice, "big.pem", Buffer.alloc(2000, 1)));
    expect(streamed.code).toBe("payload_too_large");
    expect(streamed.message).toBe("big.pem is larger than 1 KB, the field allows at most 1 KB");
    let opened = false;
    const declared = await refusal(
      storeUpload(alice, "files", "keyfile", {
        declaredBytes: 12.3 * 1024 * 1024,
        open: async () => {
          opened = true;
          throw new Error("must not be read");
        },
      }),
    );
    expect(declared.code).toBe("payload_too_large");
    expect(declared.message).toBe("the upload is 12.3 MB, the field allows at most 1 KB");
    expect(opened).toBe(false);
    expect(fs.readdirSync(uploadStoreDir()).filter((name) => name.startsWith(".tmp-"))).toEqual([]);
  });

  it("refuses a type the field does not accept, an empty file, and a field that is not a file field", async () => {
    const type = await refusal(send(alice, "photo.png", "png", { type: "image/png" }));
    expect(type.code).toBe("validation_failed");
    expect(type.message).toBe("photo.png (image/png) is not a type this field accepts: .txt, .pem");
    expect(type.fields).toEqual({ keyfile: type.message });
    expect((await refusal(send(alice, "empty.txt", ""))).message).toBe("empty.txt is empty");
    expect((await refusal(send(alice, "a.txt", "x", { field: "note" }))).message).toBe('form "files" has no file field "note"');
    expect((await refusal(storeUpload(alice, "nope", "keyfile", { declaredBytes: null, open: async () => ({}) as never }))).code).toBe(
      "not_found",
    );
  });

  it("launches with the user's own upload for this form and field, again after a job used it", async () => {
    const upload = await send(alice, "id.pem", "key for launch");
    const resolved = await resolveUploads(alice, form, { keyfile: upload.id, note: null });
    expect(resolved.manifest).toEqual([{ path: `${UPLOADS_FOLDER}/keyfile/id.pem`, sha256: upload.sha256, size: 14 }]);
    await markUploadsLaunched(resolved, 41);
    // A relaunch: the same upload, already taken by job 41.
    expect((await resolveUploads(alice, form, { keyfile: upload.id })).ids).toEqual([upload.id]);
    const stolen = await refusal(resolveUploads(bob, form, { keyfile: upload.id }));
    expect(stolen.fields).toEqual({ keyfile: "is not a file uploaded for this field" });
    const unknown = await refusal(resolveUploads(alice, form, { keyfile: "up_nosuchuploadatall00" }));
    expect(unknown.fields).toEqual({ keyfile: "is not a file uploaded for this field" });
    // No file field filled in: nothing to look up.
    expect(await resolveUploads(alice, form, { keyfile: null })).toEqual({ ids: [], manifest: [] });
  });

  it("sweeps uploads no job took after a day, and content no upload names", async () => {
    const unused = await send(alice, "unused.txt", "nobody launched me");
    const taken = await send(alice, "taken.txt", "a job took me");
    await markUploadsLaunched(await resolveUploads(alice, form, { keyfile: taken.id }), 42);
    // Within the day: both stay.
    expect((await sweepUploads(new Date(Date.now() + 3600 * 1000))).uploads).toBe(0);
    const swept = await sweepUploads(new Date(Date.now() + DAY + 3600 * 1000));
    expect(swept.uploads).toBeGreaterThanOrEqual(1);
    expect(await getDb().upload.findUnique({ where: { id: unused.id } })).toBeNull();
    expect(fs.existsSync(uploadContentPath(unused.sha256))).toBe(false);
    expect(fs.existsSync(uploadContentPath(taken.sha256))).toBe(true);
  });

  it("deletes a job's uploads, and their content once no other upload names it", async () => {
    const mine = await send(alice, "shared.txt", "shared content");
    const theirs = await send(bob, "shared.txt", "shared content");
    const alone = await send(alice, "alone.txt", "only job 43 has this");
    await markUploadsLaunched(await resolveUploads(alice, form, { keyfile: mine.id }), 43);
    await markUploadsLaunched(await resolveUploads(alice, form, { keyfile: alone.id }), 43);
    await markUploadsLaunched(await resolveUploads(bob, form, { keyfile: theirs.id }), 44);
    const later = new Date(Date.now() + 2 * 3600 * 1000);
    expect(await deleteJobUploads(43, later)).toBe(1);
    expect(await getDb().upload.count({ where: { jobId: 43 } })).toBe(0);
    expect(fs.existsSync(uploadContentPath(alone.sha256))).toBe(false);
    // Job 44's upload has the same content: it stays.
    expect(fs.existsSync(uploadContentPath(mine.sha256))).toBe(true);
    expect(await deleteJobUploads(44, later)).toBe(1);
    expect(fs.existsSync(uploadContentPath(mine.sha256))).toBe(false);
    expect(path.dirname(uploadContentPath(mine.sha256))).toBe(uploadStoreDir());
  });
});
