/**
 * Masking secret values in job output and events before they are spooled or sent.
 *
 * Masking only the raw value is a known leak: playbooks print secrets base64-encoded
 * (`kubectl get secret -o jsonpath`), URL-encoded (connection strings), and above all escaped:
 * every `debug` result is JSON, `to_json` escapes quotes, backslashes and (ensure_ascii) every
 * non-ASCII character, a `to_json` string printed by `debug` is JSON inside JSON, `to_nice_yaml`
 * picks plain, single-quoted ('' for ') or double-quoted styles and folds long lines, and a list
 * turned into a string is Python's repr (\x.., \u...., \'). Listing every combination would
 * multiply without end, so each secret becomes one pattern instead: every character that some
 * format escapes matches each of its escaped forms, at up to three levels of nesting (the
 * backslash counts double at each level). Transport encodings (base64, URL) are plain
 * alternatives. All of it is two compiled regular expressions, each applied once per text.
 *
 * Base64 is matched at any offset, not only as the encoding of the secret alone: an HTTP Basic
 * header is `base64("user:" + password)`, and a token is often encoded with a prefix or a
 * suffix. base64 encodes 3 bytes as 4 characters, so a secret inside a longer string is
 * encoded one of three ways, by where it starts in a 3-byte group (see base64Patterns). The
 * base64 may be wrapped over lines (64 or 76 columns: see replaceWrapped), and the secret may
 * be JSON-escaped before it is base64- or URL-encoded (a .dockerconfigjson's password field: see
 * jsonEscapedForms), and its base64 base64'd again within a run of base64 (a .dockerconfigjson's
 * auth field: see base64Middles). Not masked: hex, base32, UTF-16, or any other encoding not
 * named here.
 *
 * All of it is applied twice when the text holds an escape sequence or a control character: to
 * the text as stored, and to the text as the app shows it, without them (see mask-rendered.ts:
 * a secret with `ESC[K` or grep's colours inside it is shown whole).
 */
import { markersIn, maskRendered, pendingRendered } from "./mask-rendered";

export const MASK = "********";

/**
 * What a match is replaced with: null for MASK; over the view of the output as the app shows it
 * (see mask-rendered.ts), a character that marks each character of the match, so the view keeps
 * its length and each match can be mapped back onto the output.
 */
type Marker = string | null;

function hide(match: string, marker: Marker): string {
  return marker === null ? MASK : marker.repeat(match.length);
}

/** Alternatives in one compiled regular expression at most (see createMasker). */
const REGEXP_ALTERNATIVES = 32;

/** Values shorter than this are not masked: masking "a" or "1" would destroy the output. */
const MIN_SECRET_LENGTH = 4;

/**
 * The backslashes that introduce an escape sequence (\n, \u00e4, \x01) at nesting depth 1, 2
 * or 3: each level of JSON or repr escaping doubles them. Longest first, so a shorter count is
 * only tried when the longer one does not continue into the secret.
 */
const ESC = String.raw`(?:\\\\\\\\|\\\\|\\)`;
/**
 * A run of `count` backslashes at the end of the secret: each is 1 raw, then 2, 4, 8 at depth
 * 1, 2, 3, all at the same depth. One group per run, not one per backslash: a group per
 * backslash could split a run of backslashes in the output in exponentially many ways before
 * failing (a form user picks both the password and the output). A run followed by a character
 * is one unit with that character (see tokenPattern).
 */
function backslashRun(count: number): string {
  return `(?:${[8, 4, 2, 1].map((depth) => String.raw`\\{${depth * count}}`).join("|")})`;
}

/** The backslash counts of ESC. */
const ESC_COUNTS = [1, 2, 4];

/**
 * One way a character of the secret may be printed: `counts` backslashes (any one of them) and
 * then `rest`, a pattern that never starts with a backslash.
 */
interface Form {
  counts: number[];
  rest: string;
}

/**
 * A pattern for exactly one of `counts` backslashes (none when it holds 0 only): disjoint
 * exact counts and ranges, so a run of backslashes followed by a character that is not one is
 * matched one way only.
 */
function backslashCounts(counts: readonly number[]): string {
  const sorted = [...new Set(counts)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    const [low, high] = [sorted[i]!, sorted[j]!];
    if (high > 0) ranges.push(low === high ? String.raw`\\{${low}}` : String.raw`\\{${low},${high}}`);
    i = j + 1;
  }
  return ranges.length === 0 ? "" : ranges.length === 1 ? ranges[0]! : `(?:${ranges.join("|")})`;
}

/**
 * PyYAML folds scalars longer than 80 columns: plain and single-quoted styles turn a space
 * into a line break and indentation; the double-quoted style ends the line with "\" and
 * writes the space as "\ " after the indentation, and may also break right after an escape
 * (the forms of a space: see characterForms).
 */
/**
 * The line end of that fold: a backslash and a line break, raw (YAML as printed), in JSON (three
 * backslashes and n) or in JSON inside JSON (six and n). Exact counts, none of them the 1, 2 or
 * 4 of an escaped line break: a fold and an escaped line break of the secret after it cannot
 * share backslashes (a secret of line breaks against its doubly escaped form took seconds a
 * line when they could).
 */
const FOLD_BREAK = String.raw`(?:\\\n|\\{3}n|\\{6}n)`;
const DOUBLE_QUOTED_FOLD = `(?:${FOLD_BREAK} {0,64})?`;

/** One-letter escapes: JSON (b f n r t), Python (t n r), YAML (0 a b t n v f r e N _ L P). */
const SHORT_ESCAPES: Record<number, string> = {
  0x00: "0",
  0x07: "a",
  0x08: "b",
  0x09: "t",
  0x0a: "n",
  0x0b: "v",
  0x0c: "f",
  0x0d: "r",
  0x1b: "e",
  0x85: "N",
  0xa0: "_",
  0x2028: "L",
  0x2029: "P",
};
const LINE_BREAKS = new Set([0x0a, 0x0d, 0x85, 0x2028, 0x2029]);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** Hex digits of `code`, zero-padded, matching upper and lower case (Python writes \xe4, PyYAML \xE4). */
function hex(code: number, width: number): string {
  return [...code.toString(16).padStart(width, "0")].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join("");
}

/** The escape-sequence bodies (after the backslashes) that stand for one code point. */
function escapeBodies(code: number): string[] {
  const bodies: string[] = [];
  const short = SHORT_ESCAPES[code];
  if (short !== undefined) bodies.push(short);
  if (code <= 0xff) bodies.push(`x${hex(code, 2)}`);
  if (code <= 0xffff) bodies.push(`u${hex(code, 4)}`);
  else {
    // JSON's ensure_ascii writes astral characters as a surrogate pair.
    const high = 0xd800 + ((code - 0x10000) >> 10);
    const low = 0xdc00 + ((code - 0x10000) & 0x3ff);
    bodies.push(`u${hex(high, 4)}${ESC}u${hex(low, 4)}`);
  }
  bodies.push(`U${hex(code, 8)}`);
  if (code > 0x7f) {
    // The repr of the UTF-8 bytes (b'p\xc3\xa4ss'): every byte escaped.
    const bytes = [...Buffer.from(String.fromCodePoint(code), "utf8")];
    bodies.push(bytes.map((b, i) => `${i === 0 ? "" : ESC}x${hex(b, 2)}`).join(""));
  }
  return bodies;
}

/**
 * The forms of one character of a secret: itself, or any of its escaped forms, each as the
 * backslashes it starts with and the rest (see Form). Each form is one of the character's
 * escapes whole: a quote is escaped by one backslash per JSON level (1, 3, 7), by repr only when
 * repr quotes with it (so 2 in the repr of JSON); every backslash count from 1 to 7 is allowed.
 */
function characterForms(char: string): Form[] {
  const code = char.codePointAt(0)!;
  if (/[A-Za-z0-9]/.test(char)) return [{ counts: [0], rest: char }];
  if (char === '"') return [{ counts: [0, 1, 2, 3, 4, 5, 6, 7], rest: '"' }];
  // JSON may escape "/" (PHP, some encoders); HTML-safe encoders (Go, kubectl) write < > & as \u00XX.
  if (char === "/") return [{ counts: [0, ...ESC_COUNTS], rest: "\\/" }];
  const printableAscii = code >= 0x20 && code < 0x7f;
  if (printableAscii && !"<>&".includes(char)) return [{ counts: [0], rest: escapeRegExp(char) }];
  const forms: Form[] = [
    { counts: [0], rest: escapeRegExp(char) },
    { counts: ESC_COUNTS, rest: `(?:${escapeBodies(code).join("|")})${DOUBLE_QUOTED_FOLD}` },
  ];
  if (!LINE_BREAKS.has(code)) return forms;
  // YAML writes a line break inside a single-quoted or plain scalar as the break followed by
  // indentation (only after backslashes of the secret: a line break in a run of whitespace is
  // matched by whitespaceRun).
  return forms.map(({ counts, rest }) => ({ counts, rest: `${rest} {0,64}` }));
}

/**
 * The characters of a run of whitespace in a secret: spaces, line feeds and carriage returns
 * (the rarer line breaks, NEL, LS and PS, are characters of their own). Each has forms
 * that overlap the others' (a space is " " or, folded by PyYAML, a line break and indentation;
 * a line feed is one or two line breaks, each followed by indentation), so a run of them could
 * be split between the secret's characters in exponentially many ways before a match failed:
 * a secret of "\n " x 16 against "\n  \n " x 16 took 207 s (attack 3 on issue 34).
 */
/**
 * One piece of a run of whitespace as printed, so that a run in the output is cut into pieces
 * one way only: a space, a raw line break, the escape of a line break (1, 2 or 4 backslashes:
 * one to three levels of escaping; not 3, 5 or 6, which are a backslash of the secret and the
 * escape of the line break after it), PyYAML's double-quoted fold ("\" and a line break, raw or escaped,
 * indentation, and the escaped space it folded at), or the raw fold right after an escape.
 * Backslashes and a space, or a raw "\" and a line break elsewhere, are not pieces: they are a
 * backslash of the secret before a space or a line break.
 */
const WHITESPACE_PIECE = String.raw`(?: |\n|\r|(?:\\{4}|\\{2}|\\)(?:[nr]|x0[aAdD]|u000[aAdD]|U0000000[aAdD])|(?:\\\n|\\{3}n|\\{6}n) {0,64}\\{1,4} |(?<=[nr0-9a-fA-F])\\\n)`;
/** Indentation after a line break (a fold, a YAML block) taken into account, per character of a run. */
const MAX_INDENT = 64;
/**
 * A run of `count` whitespace characters of a secret: the whole run of whitespace pieces in the
 * output at that point, taken atomically (a lookahead, then a backreference to what it took:
 * JavaScript's regular expressions have no possessive quantifier), at least one piece per
 * character and at most what each could be printed as (two line breaks, each indented). So
 * the run is matched one way only and a failing match costs at most that many pieces per
 * start. Looser than the forms it stands for (any mix of spaces and line breaks of the right
 * size): a secret's whitespace is masked however it was re-flowed, never less.
 */
let whitespaceRuns = 0;
function whitespaceRun(count: number): string {
  const name = `ws${whitespaceRuns++}`;
  return `(?=(?<${name}>${WHITESPACE_PIECE}{${count},${count * 2 * (MAX_INDENT + 1)}}))\\k<${name}>`;
}

/**
 * The forms of a run of `count` single quotes: each as itself or doubled (YAML's single-quoted
 * style; any mix of the two is any count from `count` to twice it, one quantifier, so a run of
 * quotes is split one way only), or each escaped by 1 to 7 backslashes.
 */
function singleQuoteForms(count: number): Form[] {
  return [
    { counts: [0], rest: count === 1 ? "''?" : `'{${count},${2 * count}}` },
    { counts: [1, 2, 3, 4, 5, 6, 7], rest: count === 1 ? "'" : String.raw`'(?:\\{1,7}'){${count - 1}}` },
  ];
}

/**
 * One unit of a secret's pattern: a run of `backslashes` backslashes of the secret (each 1, 2,
 * 4 or 8 in the output, all the same) and the character after it, in one of its forms. The
 * backslashes of the run and those that start the character's escape are one count, so the
 * unit matches a run of backslashes in the output one way only: a run as a unit of its own and
 * the escape after it (`\\{1,7}"`) could split the same backslashes in several ways, and
 * exponentially many over a secret of `\"` repeated (catastrophic backtracking).
 */
function tokenPattern(backslashes: number, forms: readonly Form[]): string {
  const depths = backslashes === 0 ? [0] : [8, 4, 2, 1];
  const alternatives: string[] = [];
  for (const { counts, rest } of forms) {
    const totals = depths.flatMap((depth) => counts.map((count) => depth * backslashes + count));
    // The form without backslashes first: a leading literal keeps V8's fast scan working.
    if (totals.includes(0)) alternatives.push(rest);
    const escaped = totals.filter((total) => total > 0);
    if (escaped.length > 0) alternatives.push(backslashCounts(escaped) + rest);
  }
  return alternatives.length === 1 ? alternatives[0]! : `(?:${alternatives.join("|")})`;
}

/**
 * The units of a secret's pattern (see tokenPattern; a run of single quotes is one unit too),
 * and the same for its proper prefixes: `prefixUnits[i]` matches unit i whole, or cut short at
 * the end of the text inside its backslashes or quotes (the last unit only cut short).
 */
function secretUnits(secret: string): { units: string[]; prefixUnits: string[] } {
  const units: string[] = [];
  const prefixUnits: string[] = [];
  let lastCut: string | null = null;
  for (const [, run = "", quotes, spaces, char] of secret.matchAll(/(\\*)(?:('+)|([ \n\r]+)|([^\\' \n\r])|$)/gu)) {
    if (run === "" && quotes === undefined && spaces === undefined && char === undefined) continue;
    if (spaces !== undefined) {
      // Backslashes of the secret before a run of whitespace are a unit of their own (the run
      // is taken atomically, see whitespaceRun).
      if (run !== "") {
        const backslashes = backslashRun(run.length);
        units.push(backslashes);
        prefixUnits.push(String.raw`(?:${backslashes}|\\{1,${8 * run.length}}$)`);
      }
      const unit = whitespaceRun(spaces.length);
      // Cut short by the end of the text: some of the run's pieces.
      const cut = `${WHITESPACE_PIECE}{1,${spaces.length * 2 * (MAX_INDENT + 1)}}$`;
      units.push(unit);
      prefixUnits.push(`(?:${unit}|${cut})`);
      lastCut = cut;
      continue;
    }
    const unit =
      quotes !== undefined
        ? tokenPattern(run.length, singleQuoteForms(quotes.length))
        : char !== undefined
          ? tokenPattern(run.length, characterForms(char))
          : backslashRun(run.length);
    const most = 8 * run.length + 8;
    const cut =
      quotes !== undefined
        ? String.raw`(?:\\{1,${most}}(?:'(?:\\{0,7}'){0,${2 * quotes.length}}\\{0,7})?|'(?:\\{0,7}'){0,${2 * quotes.length}}\\{0,7})$`
        : run !== ""
          ? String.raw`\\{1,${most}}(?:[xuU][0-9a-fA-F]{0,7})?$`
          : null;
    units.push(unit);
    prefixUnits.push(cut === null ? unit : `(?:${unit}|${cut})`);
    lastCut = cut;
  }
  // A proper prefix ends before the last unit, or inside it.
  prefixUnits.pop();
  if (lastCut !== null) prefixUnits.push(lastCut);
  return { units, prefixUnits };
}

/**
 * A line break inside base64: `base64` wraps at 76 columns, openssl and PEM at 64, so a
 * secret's base64 may be split over two lines (or more) at any of its characters. As printed:
 * a line end (LF, CRLF, with YAML's block indentation or list dash after it; YAML's
 * single-quoted style writes a line end as a blank line), the same escaped inside a JSON string
 * (\n, or \\n in JSON inside JSON: `stdout` through to_json or to_nice_yaml), or the end of
 * one string of a list and the start of the next (`stdout_lines`: a JSON list one item per line
 * or on one line, Python's repr of a list, escaped when inside a JSON string); ansible-playbook's
 * colours (ANSI escapes) may end a line and start the next. Base64 holds none of these
 * characters (the n of \n follows a backslash, the escape starts with ESC), so a match can be
 * cut back into its pieces (see maskPieces).
 */
const ANSI = String.raw`(?:\x1b\[[0-9;]*m)*`;
/** The most characters of parameters in a colour escape walked back over (see lineEndStart). */
const ANSI_PARAMETERS_MAX = 32;
const ESCAPED_NEWLINE = `(?:${ESC}r)?${ESC}n`;
/** A quote that ends or starts a string of a list, escaped at up to three levels. */
const LIST_QUOTE = String.raw`\\{0,7}["']`;
const BASE64_BREAK =
  `(?:(?:${ANSI}\r?\n){1,2}${ANSI} *(?:- )?|${ESCAPED_NEWLINE}(?:${ESCAPED_NEWLINE})? *(?:- )?` +
  `|${LIST_QUOTE},(?: |${ANSI}\r?\n${ANSI} *|${ESC}n *)${LIST_QUOTE}` +
  // A YAML flow list (ansible's to_yaml of stdout_lines): items unquoted, ", " between them,
  // or "," and a fold (a line break and indentation, raw or escaped).
  `|,(?: |${ANSI}\r?\n${ANSI} *|${ESC}n *))`;
/**
 * A break cut short by the end of a write (see Masker.pending): a line end and what may follow
 * it, an escape sequence, a string of a list ended and the next not started yet. A colour
 * escape may be cut anywhere after its ESC, before or after the line end (`ESC` alone,
 * `ESC[0`, `ESC[0m\nESC[0;3`): a pause there left the first line of coloured wrapped base64
 * unrecognised, and the rest of the block went out unmasked (attack 4 on issue 34). The escape
 * cut short has no `m`, so it and the whole escapes before it (ANSI) split a text one way only.
 */
const ANSI_CUT = String.raw`\x1b(?:\[[0-9;]*)?`;
const BASE64_BREAK_CUT = [
  BASE64_BREAK,
  `(?:${ANSI}\r?\n){1,2}${ANSI}(?: *-?|${ANSI_CUT})`,
  `${ANSI}\r`,
  `${ANSI}${ANSI_CUT}`,
  String.raw`(?:\\{1,4}[rn]?){1,4} *-?`,
  `${LIST_QUOTE}(?:,(?: |${ANSI}\r?\n?${ANSI} *|(?:\\\\{1,4}n?)? *))?`,
  `,(?: |${ANSI}\r?\n?${ANSI} *|(?:\\\\{1,4}n?)? *)?`,
].join("|");
const BASE64_BREAK_SPLIT = new RegExp(`(${BASE64_BREAK})`);
/** A break cut short at the end of a text (see Masker.pending), over collapseColourRuns's text. */
const BASE64_BREAK_CUT_END = new RegExp(`(?:${BASE64_BREAK_CUT})$`);
// eslint-disable-next-line no-control-regex -- ansible-playbook colours its output: ANSI escapes start with ESC
const COLOUR_RUNS = /(?:\x1b\[[0-9;]*m)+/g;

/**
 * `text` with each run of whole colour escapes cut to its last escape, and where each of its
 * characters is in `text` (one more entry: text.length). BASE64_BREAK_CUT_END is anchored at
 * the end only and BASE64_BREAKS nowhere: each is tried from every escape of a run, and from
 * each one ANSI (`(?:ESC[...m)*`) takes the rest of the run before what must follow it (a line
 * end, a `\r`, the `$`) fails, twice over where two ANSI follow each other: quadratic (attack 6
 * on issue 34: with a 4,096-character secret, pending() of `\n` + 16,370 `ESC[0m` + `x` took
 * 3.7 s of the runner's event loop, 59.6 s at the 262 k window, and every job on it was
 * abandoned; `\r` or `",` before the run the same). Run over this text instead they see one
 * escape per run: every ANSI of the patterns takes a run whole or not at all where a match can
 * go on (what follows it is no escape), so they match where they did. A match starting at a
 * run's escape maps to the run's start (its ESC to the run's first character); the rest of the
 * escape kept is the run's last, as it was, for a base64 prefix that starts at its digits or m.
 */
function collapseColourRuns(text: string): { collapsed: string; at: Int32Array } {
  let collapsed = "";
  const at = new Int32Array(text.length + 1);
  let from = 0;
  const copy = (start: number, end: number) => {
    for (let i = start; i < end; i++) at[collapsed.length + i - start] = i;
    collapsed += text.slice(start, end);
  };
  COLOUR_RUNS.lastIndex = 0;
  for (let found = COLOUR_RUNS.exec(text); found; found = COLOUR_RUNS.exec(text)) {
    const end = found.index + found[0].length;
    const last = text.lastIndexOf("\x1b", end - 1);
    copy(from, found.index);
    const escape = collapsed.length;
    copy(last, end);
    at[escape] = found.index;
    from = end;
  }
  copy(from, text.length);
  at[collapsed.length] = text.length;
  return { collapsed, at: at.subarray(0, collapsed.length + 1) };
}
const BASE64_BREAKS = new RegExp(BASE64_BREAK, "g");

/**
 * A block of wrapped base64 from its first line: lines of exactly 64 or 76 base64 characters,
 * each ending at a break, and the (shorter) last line. Only there do the patterns that allow a
 * break between any two characters run: allowing it everywhere would cost V8 its fast scan
 * over the output (measured ten times slower, test/bench/mask-bench.ts).
 */
const WRAPPED_BASE64 = new RegExp(`(?:[A-Za-z0-9+/_-]{64}(?:[A-Za-z0-9+/_-]{12})?${BASE64_BREAK})+[A-Za-z0-9+/=_-]+`, "y");
/**
 * Where a line may end: a line end, an escaped \n or \r\n (at any level), the end of a string
 * of a list (stdout_lines, one item per line or on one line, JSON or repr, escaped or not).
 * The colours before a raw line end are not in the pattern but walked back over (see
 * lineEndStart): a pattern starting with `(?:ESC[...m)*` is tried at every escape of a run of
 * them, and each try takes the rest of the run before failing where no line break follows:
 * quadratic (attack 5 on issue 34: 400 KB of `ESC[0m` in one set_stats string took 104 s of
 * the runner's event loop, and every job on it was abandoned). The list's alternative starts
 * with a quote or a comma, so its colours are taken only up to the next character that is not one.
 */
// eslint-disable-next-line no-control-regex -- ansible-playbook colours its output: ANSI escapes start with ESC
const LINE_END = /\r?\n|(?:\\{1,4}r)?\\{1,4}n|(?:\\{0,7}["'])?,(?: |(?:\x1b\[[0-9;]*m)*\r?\n|\\{1,4}n)/g;

/**
 * Where the colour escapes (`ESC[...m`) right before `at` start, not before `from`. Each
 * escape is walked over once: the walk from one line end stops at the text before its colours.
 */
function lineEndStart(text: string, at: number, from = 0): number {
  let start = at;
  while (start - from >= 3 && text.charCodeAt(start - 1) === 0x6d /* m */) {
    // An escape's parameters are a few digits: a longer run of them is not walked.
    let k = start - 2;
    while (k > from && start - k <= ANSI_PARAMETERS_MAX && /[0-9;]/.test(text[k]!)) k--;
    if (k - 1 < from || text[k] !== "[" || text.charCodeAt(k - 1) !== 0x1b) break;
    start = k - 1;
  }
  return start;
}

/**
 * Wrapped base64 that may go on after the end of a text (output cut by the end of a write, a
 * full batch or the output cap): a first line of 64 or 76 base64 characters after a character
 * that is not one (whatever text is before it on its line: a label, `export TOKEN=`, a JSON
 * string's quote), the lines after it, each after a break, and the end of the text inside a
 * line or inside a break; or the end of the text inside what may be the first line (a run of
 * at most 76 base64 characters). Matched against a bounded tail only (see
 * wrappedBase64Start): the leftmost match is the block's first line.
 */
const WRAPPED_BASE64_TAIL = new RegExp(
  // After a colour escape too: its m is a base64 character (see replaceWrapped).
  `(?:(?<![A-Za-z0-9+/_-])|(?<=\\x1b\\[[0-9;]{0,${ANSI_PARAMETERS_MAX}}m))(?:[A-Za-z0-9+/_-]{64}(?:[A-Za-z0-9+/_-]{12})?(?:(?:${BASE64_BREAK})[A-Za-z0-9+/_-]{64}(?:[A-Za-z0-9+/_-]{12})?)*(?:${BASE64_BREAK_CUT})?)?[A-Za-z0-9+/_-]{0,76}$`,
);
/** Lines of wrapped base64 looked at from the end of a text: more than any secret's base64 spans. */
const WRAPPED_TAIL_LINES = 64;

/**
 * Where wrapped base64 that the end of `text` may cut begins (see WRAPPED_BASE64_TAIL), or
 * text.length: the batcher holds it back whole, so the masker sees the block's first line
 * whole with the rest (it finds wrapped base64 by its lines of 64 or 76 columns). A trailing
 * run of base64 characters that is no line of a block is held too: it may be the start of one.
 */
export function wrappedBase64Start(text: string): number {
  const from = Math.max(0, text.length - WRAPPED_TAIL_LINES * 90);
  const found = WRAPPED_BASE64_TAIL.exec(from === 0 ? text : text.slice(from));
  return found ? from + found.index : text.length;
}

/**
 * Whether a colour escape (`ESC[...m`) ends right before `at`: its m is a base64 character, so
 * a walk back over a run of base64 stops there (ansible-playbook colours a line with nothing
 * between the colour and the text).
 */
export function colourEndsAt(text: string, at: number, from = 0): boolean {
  return text.charCodeAt(at - 1) === 0x6d && lineEndStart(text, at, from) < at;
}

/** A character of base64 or base64url (by char code). */
export function isBase64Char(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2b ||
    code === 0x2f ||
    code === 0x5f ||
    code === 0x2d
  );
}

/**
 * The blocks of wrapped base64 in `text`, each replaced by `mask(block)`. Found from the line
 * ends (a regular expression starting with a class of 64 characters would be tried at every
 * position: measured twice as slow over ordinary output): a block starts where 64 or 76 base64
 * characters end at a line end, after a character that is not base64 (or an escaped \n, or a
 * colour escape).
 */
function replaceWrapped(text: string, mask: (block: string) => string): string {
  let out = "";
  let done = 0;
  LINE_END.lastIndex = 0;
  for (let found = LINE_END.exec(text); found; found = LINE_END.exec(text)) {
    const raw = text[found.index] === "\r" || text[found.index] === "\n";
    const end = raw ? lineEndStart(text, found.index, done) : found.index;
    let start = end;
    while (start > done && end - start < 77 && isBase64Char(text.charCodeAt(start - 1))) {
      // The n or r of an escaped line end is not part of the run.
      if (start >= 2 && text[start - 2] === "\\" && (text[start - 1] === "n" || text[start - 1] === "r")) break;
      // Nor the m of a colour right before the line (ansible-playbook colours a multi-line
      // message line by line: `ESC[0;32m` + 64 columns + `ESC[0m`): taken into the run, it made
      // the first line 65 to 67 long, and the block was not found (attack 5 on issue 34).
      if (colourEndsAt(text, start, done)) break;
      start--;
    }
    if (end - start !== 64 && end - start !== 76) continue;
    WRAPPED_BASE64.lastIndex = start;
    const block = WRAPPED_BASE64.exec(text);
    if (!block) continue;
    out += text.slice(done, start) + mask(block[0]);
    done = start + block[0].length;
    LINE_END.lastIndex = done;
  }
  return done === 0 ? text : out + text.slice(done);
}

/**
 * What replaces a match of a wrapped pattern: the mask on every piece, the breaks kept, so the
 * lines stay lines and no piece of the secret's base64 is left on either side of a break.
 */
function maskPieces(match: string, marker: Marker): string {
  return match
    .split(BASE64_BREAK_SPLIT)
    .map((piece, i) => (i % 2 === 1 || piece === "" ? piece : hide(piece, marker)))
    .join("");
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * The base64 of the secret's bytes wherever they start in a longer string, one pattern per
 * alignment: `skip` bytes of a prefix (0, 1 or 2 modulo 3) come before them in their first
 * 3-byte group. Each base64 character stands for 6 bits; one that holds only bits of the secret
 * is a literal (the "stable middle"), one that mixes bits of the secret with bits of the prefix
 * or suffix is the class of the characters whose secret bits are right (4 or 16 of the 64).
 * So every character that tells anything about the secret is masked, the characters made of
 * the prefix or the suffix alone stay, and each pattern pins all 8 bits of every byte of the
 * secret, whatever the alignment: a 4-byte secret is 32 bits to match, as its plain base64 is.
 * Standard and URL-safe alphabets are one pattern ([+-], [/_]); "=" padding is taken when
 * the secret ends the string. Returns [pattern, characters matched] for each alignment.
 */
function base64Patterns(secret: string): { pattern: string; length: number }[] {
  return base64Units(secret).map(({ units, padding }) => ({
    pattern: units.join("") + (padding && `(?:${padding})?`),
    length: units.length,
  }));
}

/**
 * The characters of base64Patterns' patterns, one pattern per base64 character (a line break
 * may come between any two), and the padding after them when the secret ends the string.
 */
function base64Units(secret: string): { units: string[]; padding: string }[] {
  const bytes = Buffer.from(secret, "utf8");
  const patterns: { units: string[]; padding: string }[] = [];
  for (let skip = 0; skip < 3; skip++) {
    // The first group holds `skip` unknown bytes and the secret's first ones; the whole groups
    // after it are plain base64 (computed, not looped over: a secret may be a megabyte); the
    // last group holds the secret's last bytes and unknown ones.
    const head = Math.min(bytes.length, (3 - skip) % 3);
    const whole = Math.floor((bytes.length - head) / 3) * 3;
    const units: string[] = [];
    let padding = "";
    if (head > 0) units.push(...partialGroup([...Array<null>(skip).fill(null), ...bytes.subarray(0, head)]));
    const middle = bytes.subarray(head, head + whole).toString("base64");
    for (const char of middle) units.push(char === "+" ? "[+\\-]" : char === "/" ? "[/_]" : char);
    const tail = bytes.subarray(head + whole);
    if (tail.length > 0) {
      units.push(...partialGroup([...tail]));
      // Padding when the secret ends the string.
      padding = "=".repeat(3 - tail.length);
    }
    if (units.length > 0) patterns.push({ units, padding });
  }
  return patterns;
}

/**
 * One 3-byte group of which some bytes are the secret's and the others (null) unknown, as
 * base64: the characters holding a bit of the secret, each a literal or the class of the
 * characters (standard and URL-safe) whose secret bits are right; those of unknown bits only
 * are left out.
 */
function partialGroup(group: (number | null)[]): string[] {
  const units: string[] = [];
  for (let char = 0; char < 4; char++) {
    let known = 0;
    let value = 0;
    for (let k = 0; k < 6; k++) {
      const bit = char * 6 + k;
      const byte = group[bit >> 3];
      if (byte === null || byte === undefined) continue;
      known |= 1 << (5 - k);
      value |= ((byte >> (7 - (bit & 7))) & 1) << (5 - k);
    }
    if (known === 0) continue;
    const chars = new Set<string>();
    for (let v = 0; v < 64; v++) {
      if ((v & known) === value) chars.add(BASE64[v]!).add(BASE64URL[v]!);
    }
    units.push(chars.size === 1 ? escapeRegExp([...chars][0]!) : `[${[...chars].map(escapeRegExp).join("")}]`);
  }
  return units;
}

/**
 * The URL encodings of the raw value as one pattern, character by character:
 * encodeURIComponent, Python's quote() (ansible's `urlencode` filter: also escapes !'()* and
 * keeps "/") and quote_plus() (a space is "+"), and "~" as %7E (PHP's urlencode, Java's URLEncoder).
 * One alternative instead of one per encoder:
 * the masker's cost grows with the number of alternatives. Null when every character is
 * written as itself (the raw pattern masks it).
 */
function urlEncodingPattern(secret: string): { units: string[]; length: number } | null {
  const units: string[] = [];
  let length = 0;
  let encoded = false;
  for (const char of secret) {
    const uri = encodeURIComponent(char);
    const python = uri.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    // PHP's urlencode, Java's URLEncoder and .NET escape "~" too (%7E).
    const forms = [
      ...new Set([uri, python, python === "%2F" ? "/" : python, python === "%20" ? "+" : python, char === "~" ? "%7E" : python]),
    ];
    if (forms.length > 1 || forms[0] !== char) encoded = true;
    const patterns = forms.map(percentPattern);
    units.push(patterns.length === 1 ? patterns[0]! : `(?:${patterns.join("|")})`);
    length += uri.length;
  }
  return encoded ? { units, length } : null;
}

/** A URL-encoded form as a pattern: the hex digits of each %XX in either case (Python and Go write %C3, some encoders %c3). */
function percentPattern(form: string): string {
  return escapeRegExp(form).replace(/%([0-9A-F])([0-9A-F])/g, (_, high: string, low: string) => `%${hexDigit(high)}${hexDigit(low)}`);
}

function hexDigit(digit: string): string {
  return /[A-F]/.test(digit) ? `[${digit}${digit.toLowerCase()}]` : digit;
}

/**
 * The secret as it stands inside a JSON string, when that differs from the secret: with
 * ensure_ascii (Python's default: every non-ASCII character as \u00e9, lowercase hex, astral
 * ones as a surrogate pair) and without (raw UTF-8; JavaScript, Go, `to_json(ensure_ascii=False)`).
 * The escaped pattern matches these forms as they are printed; their base64 and URL encodings
 * (a Kubernetes `.dockerconfigjson` is base64 of a JSON document holding the password, a JSON
 * query parameter is URL-encoded) are different bytes, so they get patterns of their own.
 */
function jsonEscapedForms(secret: string): string[] {
  const raw = JSON.stringify(secret).slice(1, -1);
  const ascii = raw.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return [...new Set([raw, ascii])].filter((form) => form !== secret);
}

/**
 * The base64 of the secret inside a longer string, the characters made of its bits alone, at
 * each alignment: what base64 of that base64 holds. A .dockerconfigjson's `auth` field is
 * base64("user:" + password), and the file is base64'd whole (a Kubernetes Secret): the outer
 * base64 of these middles is masked; the one or two characters at each end of the inner
 * base64 that mix the secret's bits with a neighbour's are not (a few bits of its first and last
 * bytes).
 */
function base64Middles(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const middles = new Set<string>();
  for (let skip = 0; skip < 3; skip++) {
    const head = (3 - skip) % 3;
    const whole = Math.floor((bytes.length - head) / 3) * 3;
    if (whole > 0) middles.add(bytes.subarray(head, head + whole).toString("base64"));
  }
  return [...middles].filter((middle) => middle.length >= MIN_SECRET_LENGTH);
}

/** A run of base64 long enough to hold base64 of base64 of a secret (see base64Middles). */
const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}/g;

export interface Masker {
  (text: string): string;
  /**
   * How many characters at the end of `text` (output cut by the end of a write) could be the
   * start of a secret in one of its forms: the batcher holds them back until more output comes,
   * so a secret printed in two writes is masked whole. 0 when nothing at the end could be.
   */
  pending?: (text: string) => number;
}

/**
 * What may end a write in the middle of one character of a form: an escape sequence cut short
 * (\u00, \\x), a percent escape cut short (%C), a line break inside base64 cut short.
 */
const CUT_ESCAPE = String.raw`\\{1,8}(?:[xuU][0-9a-fA-F]{0,7})?|%[0-9a-fA-F]?`;
/**
 * A URL-encoded character cut between the %XX of its UTF-8 bytes (%C3 of %C3%A9): a lead byte,
 * up to two continuation bytes, and the start of the next.
 */
const CUT_UTF8 = String.raw`%[c-fC-F][0-9a-fA-F](?:%[89abAB][0-9a-fA-F]){0,2}(?:%[89abAB]?)?`;
/** A prefix longer than this many characters of a form counts as the start of that form, whatever follows. */
const PREFIX_UNITS = 16;

/**
 * The proper prefixes of a form (its characters' patterns, `sep` between two), ending at the end
 * of the text: u0(?:sep u1(?:sep u2 ...)?)?, nested so the pattern stays as long as the form's.
 * `whole`: the whole form too (base64 whose padding may still follow).
 */
function prefixPattern(units: string[], sep: string, whole = false): string | null {
  const count = whole ? units.length : units.length - 1;
  if (count < 1) return null;
  const depth = Math.min(count, PREFIX_UNITS);
  let inner = depth < count ? String.raw`[\s\S]*` : "";
  for (let i = depth - 1; i >= 1; i--) inner = `(?:${sep}${units[i]}${inner})?`;
  return units[0] + inner;
}

/** The length of the longest end of `text` that is a proper prefix of one of `literals`. */
function literalPending(text: string, literals: readonly string[]): number {
  let start = text.length;
  for (const literal of literals) {
    for (let at = Math.max(0, text.length - literal.length + 1); at < start; at++) {
      at = text.indexOf(literal[0]!, at);
      if (at === -1 || at >= start) break;
      if (literal.startsWith(text.slice(at))) start = at;
    }
  }
  return text.length - start;
}

/**
 * A secret longer than this (a certificate bundle, a key file pasted into a field) is masked by
 * its literal forms only: as written, JSON-escaped, and its base64 and base64url at each of the
 * three alignments. Its per-character pattern would be too large for V8 ("Regular expression
 * too large" from about 30 KB), and the masker could not be built at all.
 */
export const LONG_SECRET_LENGTH = 4_096;

/** A secret as printed raw, in a JSON string, and in JSON inside a JSON string. */
function exactForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, json, JSON.stringify(json).slice(1, -1)])].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

function literalForms(secret: string): string[] {
  const forms = new Set<string>([secret, JSON.stringify(secret).slice(1, -1)]);
  const bytes = Buffer.from(secret, "utf8");
  for (let skip = 0; skip < 3; skip++) {
    // The whole 3-byte groups from `skip` on: what any prefix of length = -skip (mod 3) leaves intact.
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    const base64 = bytes.subarray(skip, skip + whole).toString("base64");
    forms.add(base64);
    forms.add(base64.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * A secret of digits with leading zeros (a PIN, "00481516") as a number prints it: without them
 * (`{{ pin | int }}` is 481516, in the output or handed back with set_stats). Masked so too,
 * when what is left is long enough to be a secret at all (MIN_SECRET_LENGTH).
 */
function withoutLeadingZeros(secret: string): string[] {
  const trimmed = trimSecret(secret);
  return /^0+[0-9]+$/.test(trimmed) ? [trimmed.replace(/^0+/, "")] : [];
}

/**
 * A line of a multi-line secret shorter than this is not masked on its own: a short line
 * (`-----END`, `}`, an empty line) is common text and tells little about the secret.
 */
const MIN_LINE_LENGTH = 8;

/**
 * The lines of a multi-line secret worth masking on their own, trimmed: `--diff` prints each
 * line after "+", `sed 's/^/  /'` or a YAML block under another indentation before it, and
 * the whole secret is then nowhere in the output. PEM armour lines (`-----BEGIN ...-----`) are
 * public text, the same in every key: not masked.
 */
export function secretLines(secret: string): string[] {
  if (!/[\r\n]/.test(secret)) return [];
  return secret
    .split(/\r?\n|\r/)
    .map((line) => line.trim())
    .filter((line) => line.length >= MIN_LINE_LENGTH && !/^-----(BEGIN|END) [A-Z0-9 ]+-----$/.test(line) && line !== secret);
}

/**
 * A secret without the spaces and line breaks around it: they tell nothing about the secret,
 * and a pattern that starts with a run of whitespace has no literal for V8 to scan for, so
 * every position of a run of spaces in the output would try the whole run (whitespaceRun): a
 * secret of 100 spaces and "x1yz" took 2.4 s over 64 KiB of spaces (attack 4 on issue 34).
 * The whitespace inside a secret is kept, and a copy of the whole secret printed as it is (raw,
 * in a JSON string, in JSON inside JSON) is masked with its whitespace (see `untrimmed` in
 * createMasker). A secret shorter than 4 characters once trimmed is masked only so; a secret
 * that is whitespace only is not masked at all (it would mask every such run of the output).
 */
function trimSecret(secret: string): string {
  return secret.replace(/^[ \n\r]+|[ \n\r]+$/g, "");
}

/** What `--diff`, a YAML block, a list or a quote may print before each line of a multi-line secret. */
const LINE_PREFIX_CHARS = String.raw`[-+ \t|>]`;
/**
 * A secret of more lines than this has no line-prefixed pattern: a group per line, and 2,000
 * lines (a secret of line breaks) overflowed V8's stack compiling the expression. A key or a
 * certificate of 4,096 characters has about 70.
 */
const MAX_PREFIXED_LINES = 256;
/** The most prefix characters taken before a line (besides the line's own leading ones). */
const MAX_LINE_PREFIX = 64;

/**
 * A multi-line secret whose lines are printed with a prefix before each (`--diff`'s "+", a
 * YAML block's indentation, a list's "- ", "| ", "> "), with LF or CRLF whatever the secret's
 * own line ends: the first line as written, then each line break as CRLF, LF or CR (a CR not
 * before an LF: a CRLF is one break only, or a secret of empty lines would split a run of CRLF
 * in exponentially many ways) and the next line after a run of prefix characters. The run is taken atomically (a lookahead and a
 * backreference, as in whitespaceRun: at most MAX_LINE_PREFIX characters plus the line's own
 * leading prefix characters, which it takes too and so are not matched again), so a match
 * fails one way only and costs at most the secret's length plus its prefixes per start. Its
 * lines are too short to be masked alone (secretLines: backup codes, one per line), the whole
 * is not. Raw output only (`--diff` prints the file as it is). Null for a one-line secret.
 */
let linePrefixRuns = 0;
function linePrefixedPattern(secret: string): string | null {
  const lines = secret.split(/\r?\n|\r/);
  if (lines.length < 2 || lines.length > MAX_PREFIXED_LINES) return null;
  let pattern = escapeRegExp(lines[0]!);
  for (const line of lines.slice(1)) {
    const lead = /^[-+ \t|>]*/.exec(line)![0].length;
    const name = `lp${linePrefixRuns++}`;
    pattern += String.raw`(?:\r\n|\r(?!\n)|\n)(?=(?<${name}>${LINE_PREFIX_CHARS}{${lead},${lead + MAX_LINE_PREFIX}}))\k<${name}>${escapeRegExp(line.slice(lead))}`;
  }
  return pattern;
}

export function createMasker(secrets: readonly string[]): Masker {
  const alternatives = new Map<string, number>();
  /** The base64 of the secrets after 1 or 2 bytes (mod 3) of something else: a second pass. */
  const shifted = new Map<string, number>();
  /** The base64 patterns of every alignment, for wrapped base64 once its breaks are taken out. */
  const wrapped = new Map<string, number>();
  /** The base64 of the base64 of the secrets (see base64Middles): a pass over runs of base64 only. */
  const doubled = new Map<string, number>();
  const literals: string[] = [];
  /** Every secret's exact forms (exactForms), masked after the patterns: only what they left. */
  const exact: string[] = [];
  /**
   * The exact forms of a secret with whitespace around it (see trimSecret), masked first: the
   * patterns mask the trimmed secret, and a copy printed whole goes with its whitespace (also
   * when the trimmed secret is too short to have patterns of its own). Plain text: linear.
   */
  const untrimmed = [
    ...new Set(secrets.filter((secret) => trimSecret(secret) !== secret && trimSecret(secret) !== "").flatMap(exactForms)),
  ].sort((a, b) => b.length - a.length);
  /** The proper prefixes of every form, base64 (a break may end them) and the others. */
  const prefixes = new Set<string>();
  /** The base64 forms' characters, for their prefixes (built when first needed, see below). */
  const base64Forms: { units: string[]; whole: boolean }[] = [];
  let longest = 0;
  const addBase64 = (form: string) => {
    base64Patterns(form).forEach(({ pattern, length }, skip) => {
      (skip === 0 ? alternatives : shifted).set(pattern, length);
      wrapped.set(pattern, length);
    });
    for (const { units, padding } of base64Units(form)) base64Forms.push({ units, whole: padding !== "" });
  };
  const addUrl = (form: string) => {
    const url = urlEncodingPattern(form);
    if (!url) return;
    alternatives.set(url.units.join(""), url.length);
    const prefix = prefixPattern(url.units, "");
    if (prefix) prefixes.add(prefix);
  };
  for (const secret of new Set([...secrets.map(trimSecret), ...secrets.flatMap(secretLines), ...secrets.flatMap(withoutLeadingZeros)])) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    if (secret.length > LONG_SECRET_LENGTH) {
      literals.push(...literalForms(secret));
      continue;
    }
    const { units, prefixUnits } = secretUnits(secret);
    alternatives.set(units.join(""), secret.length);
    const prefixed = linePrefixedPattern(secret);
    if (prefixed) alternatives.set(prefixed, secret.length);
    // The secret as it is, JSON-escaped and escaped twice, matched as plain text too: whatever
    // the patterns' units cannot take (a run of whitespace is taken atomically, so a secret with
    // a space before a literal backslash-n, "ab \\nc", escapes them), an exact copy never does.
    exact.push(...exactForms(secret));
    const prefix = prefixPattern(prefixUnits, "", true);
    if (prefix) prefixes.add(prefix);
    longest = Math.max(longest, secret.length);
    addBase64(secret);
    addUrl(secret);
    for (const form of jsonEscapedForms(secret)) {
      addBase64(form);
      addUrl(form);
    }
    for (const middle of base64Middles(secret)) for (const { pattern, length } of base64Patterns(middle)) doubled.set(pattern, length);
  }
  // Longest first, like the patterns: a long secret's raw form before a shorter base64 of it.
  literals.sort((a, b) => b.length - a.length);
  const maskForms = (text: string, forms: readonly string[], marker: Marker) =>
    forms.reduce((out, form) => (out.includes(form) ? out.split(form).join(hide(form, marker)) : out), text);
  const maskLiterals = (text: string, marker: Marker) => maskForms(text, literals, marker);
  const maskUntrimmed = (text: string, marker: Marker) => maskForms(text, untrimmed, marker);
  // The characters of every secret: never the marker of a view (see mask-rendered.ts).
  const reserved = markersIn(secrets.join(""));
  /** `core`, then over the view of its result as the app shows it (see mask-rendered.ts). */
  const withRendered = (core: (text: string, marker: Marker) => string): Masker => {
    return (text) => maskRendered(core(text, null), MASK, reserved, core);
  };
  if (alternatives.size === 0) {
    if (literals.length === 0 && untrimmed.length === 0) return (text) => text;
    const literalsOnly = withRendered((text, marker) => maskUntrimmed(maskLiterals(text, marker), marker));
    const literalsPending = (text: string) => literalPending(text, literals);
    const longestLiteral = Math.max(0, ...[...literals, ...untrimmed].map((form) => form.length));
    literalsOnly.pending = (text) => Math.max(literalsPending(text), pendingRendered(text, literalsPending, longestLiteral));
    return literalsOnly;
  }
  // Longest first, so a secret's base64 is masked whole rather than leaving a padded tail, and
  // a secret containing a shorter one is masked whole.
  const regExp = (patterns: Map<string, number>) =>
    new RegExp(
      [...patterns]
        .sort((a, b) => b[1] - a[1])
        .map(([source]) => source)
        .join("|"),
      "g",
    );
  // The same patterns in several regular expressions of at most REGEXP_ALTERNATIVES each, in
  // the same order: past about 60 alternatives in one, V8 masked 1.6 MB of ordinary output 20
  // times slower (attack 3 on issue 34: 30 secrets 51 ms, 40 secrets 797 ms, 100 1.7 s). Longest
  // first still: a longer pattern is applied before a shorter one, in an earlier expression or
  // earlier in the same one.
  const regExps = (patterns: Map<string, number>) => {
    const sorted = [...patterns].sort((a, b) => b[1] - a[1]).map(([source]) => source);
    const chunks: RegExp[] = [];
    for (let i = 0; i < sorted.length; i += REGEXP_ALTERNATIVES)
      chunks.push(new RegExp(sorted.slice(i, i + REGEXP_ALTERNATIVES).join("|"), "g"));
    return chunks;
  };
  const replaceAll = (text: string, regExps: readonly RegExp[], marker: Marker) =>
    marker === null
      ? regExps.reduce((out, re) => out.replace(re, MASK), text)
      : regExps.reduce((out, re) => out.replace(re, (match) => marker.repeat(match.length)), text);
  const testAny = (text: string, regExps: readonly RegExp[]) =>
    regExps.some((re) => {
      re.lastIndex = 0;
      return re.test(text);
    });
  // Two passes, measured faster than one (test/bench/mask-bench.ts): V8 skips ahead over text
  // no alternative can start with, and the shifted base64 patterns, which start with a class
  // of 4 or 16 characters, would leave almost nothing to skip for the other alternatives.
  // "********" holds no base64 character, so the second pass never matches across a mask.
  const first = regExps(alternatives);
  const second = regExps(shifted);
  // Wrapped base64 first: the blocks where a line break may split a secret's base64, masked
  // piece by piece; then the rest (a secret's base64 within one line is masked either way).
  // The block is matched without its breaks, by the base64 patterns alone, and each match is
  // mapped back onto the block: a pattern with a break allowed before every character was
  // megabytes of source for a key-sized secret (4.8 s to compile for a 250-character one).
  // Compiled when first needed.
  let broken: RegExp | null = null;
  // Most blocks (a certificate, a file dumped in base64) hold no secret: the block without its
  // breaks goes through the fast patterns first (measured 10 times faster over 1 MB of base64).
  const unwrapBlock = (block: string, marker: Marker) => {
    const joined = block.replace(BASE64_BREAKS, "");
    if (!testAny(joined, first) && !testAny(joined, second)) return block;
    // Where each character of `joined` is in the block.
    const at = new Int32Array(joined.length);
    let j = 0;
    let from = 0;
    const copy = (to: number) => {
      for (let i = from; i < to; i++) at[j++] = i;
    };
    BASE64_BREAKS.lastIndex = 0;
    for (let found = BASE64_BREAKS.exec(block); found; found = BASE64_BREAKS.exec(block)) {
      if (found[0] === "") {
        BASE64_BREAKS.lastIndex++;
        continue;
      }
      copy(found.index);
      from = found.index + found[0].length;
    }
    copy(block.length);
    broken ??= regExp(wrapped);
    broken.lastIndex = 0;
    let out = "";
    let done = 0;
    for (let match = broken.exec(joined); match; match = broken.exec(joined)) {
      if (match[0] === "") {
        broken.lastIndex++;
        continue;
      }
      const start = at[match.index]!;
      const end = at[match.index + match[0].length - 1]! + 1;
      out += block.slice(done, start) + maskPieces(block.slice(start, end), marker);
      done = end;
    }
    return out + block.slice(done);
  };
  const unwrap = (text: string, marker: Marker) => replaceWrapped(text, (block) => unwrapBlock(block, marker));
  // Base64 of base64 only inside a run of base64 characters: as alternatives of the passes
  // above, its patterns (which start with common letters) made them three times slower.
  const third = regExps(doubled);
  const masked = (text: string, marker: Marker) => {
    const twice = replaceAll(replaceAll(unwrap(text, marker), first, marker), second, marker);
    return third.length > 0 ? twice.replace(BASE64_RUN, (run) => replaceAll(run, third, marker)) : twice;
  };
  // The exact forms after the patterns, longest first: a pattern's match is often longer (the
  // escapes around a secret's backslashes or quotes), and masking a copy inside it first would
  // leave the rest of it in the text.
  exact.sort((a, b) => b.length - a.length);
  const masker = withRendered((text, marker) =>
    maskForms(masked(maskUntrimmed(literals.length === 0 ? text : maskLiterals(text, marker), marker), marker), exact, marker),
  );
  // The start of a form at the end of a text: a proper prefix, maybe cut inside one of its
  // characters (base64 also at a line break). Sought only in the last `window` characters: no
  // form of a secret is longer than 64 characters per character of the secret (eight backslashes and U0001f600,
  // four levels deep; the URL encoding of its \u escapes).
  const window = 64 * longest + 64;
  // Two patterns, each compiled when first needed: the one that lets a line break come inside
  // base64 is several times larger (and slower to compile), and only text with a break needs it.
  const base64Prefixes = () => [
    ...new Set(base64Forms.map(({ units, whole }) => prefixPattern(units, "", whole)).filter((p) => p !== null)),
  ];
  const pendingPattern = () => {
    const base64 = base64Prefixes();
    return new RegExp(
      [
        ...(prefixes.size > 0 ? [`(?:${[...prefixes].join("|")})(?:${CUT_ESCAPE}|${CUT_UTF8})?$`] : []),
        ...(base64.length > 0 ? [`(?:${base64.join("|")})\\?$`] : []),
        `(?:${CUT_ESCAPE})$`,
      ].join("|"),
    );
  };
  // Base64 with line breaks in it (wrapped, in a JSON string, in a list): the tail without its
  // breaks (and without a break cut short at its end) against the base64 prefixes, the match
  // mapped back. A pattern with a break allowed between any two characters of every prefix
  // took 12 s to compile for 100 secrets (attack 3 on issue 34), on the runner's event loop.
  const withBreaksPending = (tail: string): number => {
    // Over runs of colours cut to one escape each (see collapseColourRuns): linear.
    const { collapsed, at: original } = collapseColourRuns(tail);
    const trailing = BASE64_BREAK_CUT_END.exec(collapsed);
    const body = trailing ? collapsed.slice(0, trailing.index) : collapsed;
    const at: number[] = [];
    let from = 0;
    let joined = "";
    BASE64_BREAKS.lastIndex = 0;
    for (let found = BASE64_BREAKS.exec(body); ; found = BASE64_BREAKS.exec(body)) {
      const to = found ? found.index : body.length;
      for (let i = from; i < to; i++) at.push(original[i]!);
      joined += body.slice(from, to);
      if (!found) break;
      if (found[0] === "") BASE64_BREAKS.lastIndex++;
      from = found.index + found[0].length;
    }
    const match = (joinedPattern ??= joinedPrefixPattern()).exec(joined);
    return match ? tail.length - at[match.index]! : 0;
  };
  const joinedPrefixPattern = () => {
    const base64 = base64Prefixes();
    return base64.length > 0 ? new RegExp(`(?:${base64.join("|")})$`) : /(?!)/;
  };
  let withoutBreaks: RegExp | null = null;
  let joinedPattern: RegExp | null = null;
  const pendingOf = (text: string) => {
    const tail = text.length > window ? text.slice(-window) : text;
    const match = (withoutBreaks ??= pendingPattern()).exec(tail);
    let held = match ? tail.length - match.index : 0;
    if (/[\r\n]|\\[rn]|,/.test(tail)) held = Math.max(held, withBreaksPending(tail));
    held = Math.max(held, literalPending(text, exact));
    return literals.length === 0 ? held : Math.max(held, literalPending(text, literals));
  };
  // The start of a secret as the app shows the end of the text too (an escape between its
  // characters, or an escape cut short at the end: see mask-rendered.ts).
  masker.pending = (text) => Math.max(pendingOf(text), pendingRendered(text, pendingOf, window));
  return masker;
}

/**
 * The same masking over every string of a JSON value (keys included): callback events carry
 * task names, loop items and labels, which hold whatever the playbook templated into them.
 * A number too, by its decimal form: a password of digits (a PIN) handed back with set_stats
 * as `{{ pin | int }}` is a JSON number (attack 5 on issue 34: `{"pin_list":[48151623]}` went
 * to the spool, the database and the artifacts API). A number whose digits hold a secret
 * anywhere (1048151623 for 48151623, as its text would be masked) becomes the mask, a string:
 * part of a number masked is no number, and the type says less than the digits left would.
 */
export function maskJson(value: unknown, mask: Masker): unknown {
  if (typeof value === "string") return mask(value);
  if (typeof value === "number") {
    // Exact up to 2^53 (about 16 digits): a longer integer was rounded by the runner's
    // JSON.parse before it got here, and may not be masked (documented in docs/security.md).
    const digits = String(value);
    return mask(digits) === digits ? value : MASK;
  }
  if (Array.isArray(value)) return value.map((v) => maskJson(v, mask));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[mask(key)] = maskJson(v, mask);
    return out;
  }
  return value;
}
