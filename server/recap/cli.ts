/**
 * `npm run --silent recap -- LOGFILE` prints the recap JSON of an ansible-playbook text log;
 * `npm run --silent recap -- --compare A B` prints the comparison of two logs.
 * LOGFILE may be `-` for standard input. Files are streamed through the parser, so a log of
 * any size is parsed in constant memory (the text is never held whole).
 * Exit codes: 0 success, 2 bad usage or an unreadable input (one message on stderr).
 */
import { createReadStream, realpathSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { pathToFileURL } from "node:url";
import { compareRecaps } from "./compare";
import { RecapTextParser } from "./parse-text";
import type { Recap } from "./types";

const USAGE = `usage: npm run --silent recap -- LOGFILE
       npm run --silent recap -- --compare LOG_A LOG_B
Prints the recap JSON of an ansible-playbook log (or the comparison of two runs).
LOGFILE may be - to read standard input.`;

/**
 * 64 KiB reads (measured against 256 KiB and 1 MiB on a 25 MB log: fastest and lowest RSS).
 * Larger chunks decode to strings that V8 puts in large-object space, which only a full GC
 * frees, so RSS grows with them; 64 KiB strings die young and cheaply.
 */
export const CHUNK_BYTES = 1 << 16;

/** An input that cannot be read; the message names the file and the reason. */
export class InputError extends Error {}

const REASONS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EISDIR: "is a directory",
  ENOTDIR: "a path component is not a directory",
  ELOOP: "too many symbolic links",
  EMFILE: "too many open files",
};

/** The system error code (ENOENT…) of an I/O failure; undefined for anything else. */
function ioCode(err: unknown): string | undefined {
  return err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : undefined;
}

function describe(file: string, err: Error, code: string): string {
  return `recap: cannot read ${file === "-" ? "standard input" : `'${file}'`}: ${REASONS[code] ?? err.message}`;
}

/**
 * Bytes (or already decoded text) -> Recap, decoding UTF-8 across chunk boundaries (a character
 * split between two reads is completed by the next one; invalid bytes become U+FFFD).
 * string_decoder rather than TextDecoder: on Node 20, TextDecoder's stream mode goes through
 * ICU at about 1 GB/s, string_decoder about 8 GB/s, and decoding was a quarter of the CLI's time.
 */
export async function parseRecapStream(input: AsyncIterable<Uint8Array | string>): Promise<Recap> {
  const decoder = new StringDecoder("utf8");
  const parser = new RecapTextParser();
  for await (const chunk of input) {
    if (typeof chunk === "string") parser.push(chunk);
    else parser.push(decoder.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
  }
  parser.push(decoder.end());
  return parser.finish();
}

export async function parseRecapFile(file: string): Promise<Recap> {
  const input = file === "-" ? process.stdin : createReadStream(file, { highWaterMark: CHUNK_BYTES });
  try {
    return await parseRecapStream(input);
  } catch (err) {
    const code = ioCode(err);
    // Only I/O failures are the input's fault; anything else is a bug and keeps its stack.
    if (code === undefined || !(err instanceof Error)) throw err;
    throw new InputError(describe(file, err, code));
  }
}

type Command = { kind: "parse"; file: string } | { kind: "compare"; a: string; b: string } | { kind: "help" };

function parseArgs(args: string[]): Command | null {
  if (args.length === 1 && (args[0] === "-h" || args[0] === "--help")) return { kind: "help" };
  if (args[0] === "--compare") {
    const [, a, b] = args;
    if (args.length !== 3 || a === undefined || b === undefined || (a === "-" && b === "-")) return null;
    return { kind: "compare", a, b };
  }
  const [file] = args;
  if (args.length !== 1 || file === undefined || (file.startsWith("-") && file !== "-")) return null;
  return { kind: "parse", file };
}

export async function main(args: string[]): Promise<number> {
  const cmd = parseArgs(args);
  if (cmd === null) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (cmd.kind === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    const out =
      cmd.kind === "parse" ? await parseRecapFile(cmd.file) : compareRecaps(await parseRecapFile(cmd.a), await parseRecapFile(cmd.b));
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
}

function invokedDirectly(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

/** The command: runs main() with the process's exit code and error reporting. */
export function runCli(args: string[]): void {
  // A closed pipe (`| head`) is not an error worth a stack trace.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
  main(args).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      // Not the input's fault (that is exit 2 above): a bug, so keep the stack for the report.
      process.stderr.write(`recap: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

// Run only as a command (`tsx server/recap/cli.ts`; `npm run recap` goes through
// scripts/recap.mjs): the bench and the tests import parseRecapFile from this module.
if (invokedDirectly()) runCli(process.argv.slice(2));
