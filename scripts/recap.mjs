// `npm run recap`: server/recap/cli.ts without a TypeScript loader at run time.
//
// Starting through tsx costs about 0.4 s before the first line is read (its loader, then each
// module through the loader's thread): on two kubespray-class logs that was half of
// `--compare`. So the CLI is bundled with esbuild into a cache file, once, and plain node runs
// that. The cache is keyed by this checkout and by the content of every file in the bundle
// (the manifest lists them), so any change to server/recap rebuilds it on the next run. It
// lives where tsx keeps its own cache: os.tmpdir()/playform-recap-UID/. Without a writable
// cache the bundle runs from memory; if bundling fails (no esbuild), the CLI runs through tsx.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ENTRY = path.join(ROOT, "server/recap/cli.ts");
const CACHE = path.join(tmpdir(), `playform-recap-${process.getuid?.() ?? "user"}`);
const KEY = createHash("sha256").update(ROOT).digest("hex").slice(0, 16);
const MANIFEST = path.join(CACHE, `${KEY}.json`);

/** Hash of the files' contents, or null when one cannot be read (deleted, renamed: rebuild). */
function contentHash(files) {
  const hash = createHash("sha256");
  try {
    for (const file of files) hash.update(file).update("\0").update(readFileSync(file)).update("\0");
  } catch {
    return null;
  }
  return hash.digest("hex").slice(0, 16);
}

const bundlePath = (hash) => path.join(CACHE, `${KEY}-${hash}.mjs`);

/** Written aside, then renamed: two runs building at once never read half a file. */
function writeAtomically(file, content) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

/** The URL of the bundle for the sources as they are now, built if the cache has none. */
async function bundle() {
  try {
    const { inputs } = JSON.parse(readFileSync(MANIFEST, "utf8"));
    const hash = contentHash(inputs);
    if (hash !== null) {
      const file = bundlePath(hash);
      statSync(file); // throws when it is not there
      return pathToFileURL(file).href;
    }
  } catch {
    // no manifest or no bundle yet: build
  }
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [ENTRY],
    absWorkingDir: ROOT,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    packages: "external",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs).map((input) => path.resolve(ROOT, input));
  const hash = contentHash(inputs);
  const code = result.outputFiles[0].contents;
  try {
    if (hash === null) throw new Error("a source changed while it was bundled");
    return pathToFileURL(cache(hash, inputs, code)).href;
  } catch {
    return `data:text/javascript;base64,${Buffer.from(code).toString("base64")}`;
  }
}

/** Stores the bundle and its manifest, drops this checkout's older bundles; returns the bundle's path. */
function cache(hash, inputs, code) {
  mkdirSync(CACHE, { recursive: true, mode: 0o700 });
  const file = bundlePath(hash);
  writeAtomically(file, code);
  writeAtomically(MANIFEST, JSON.stringify({ entry: ENTRY, inputs }));
  for (const old of readdirSync(CACHE)) {
    if (old.startsWith(`${KEY}-`) && old.endsWith(".mjs") && path.join(CACHE, old) !== file) rmSync(path.join(CACHE, old), { force: true });
  }
  return file;
}

let cli;
try {
  cli = await import(await bundle());
} catch {
  const { register } = await import("tsx/esm/api");
  register();
  cli = await import(pathToFileURL(ENTRY).href);
}
cli.runCli(process.argv.slice(2));
