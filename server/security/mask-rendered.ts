/**
 * Masking the output as the app shows it. The app drops every escape sequence and control
 * character when it renders output (parseAnsi in the output pane) or serves it as plain text
 * (stripAnsi: `GET /api/jobs/ID/log?ansi=0`), so a secret with an escape inside it (grep
 * --color=always highlighting its digits, `ESC[K`, an OSC title, a NUL) was stored unmasked and
 * shown whole (attack 7 on issue 34). Printed inside a JSON string (`debug` of stdout_lines),
 * the same escapes are `\u001b[01;31m`, which a reader skips as easily.
 *
 * So the masker reads two more views of the text, each character of a view knowing where it came
 * from: the text as the app shows it (every escape sequence and control character taken out by
 * the renderer's own definition, hiddenRanges in server/protocol/ansi.ts, line by line as the
 * app strips an OSC), and the same after JSON- and repr-escaped control characters are decoded
 * (`\u001b`, `\\u001b`, `\x1b`). Both, because neither alone is what a reader sees: the app
 * decodes nothing and shows `\u001b` as six characters and what follows it as text, while the
 * decoded view hides the sequence such an escape starts (`\u001bW` hides the `W`). With the
 * decoded view alone, `\u001b` just before a secret with a real escape inside it hid the
 * secret's first character from the view while the app showed the secret whole (attack 8). The
 * raw view is the app's own rendering, so a secret the app shows whole is found there; the
 * decoded one adds what a reader of JSON-escaped colours sees.
 *
 * The masker's patterns run over each view, each match marked character for character; each run
 * of marked characters is mapped back onto the text as a range, the ranges of both views merged,
 * and each merged range masked there whole, from its first character to its last, the escapes
 * between its pieces included. Linear: one pass to build each view, the masker's own passes
 * over it, one pass to merge and map back.
 *
 * An escape cut short at the end of a text (`ESC[24` with no final byte yet) reads two ways:
 * as the start of a sequence whose end is still to come (what the batcher waits for: pending
 * leaves it out of the views), and as what the app makes of it if nothing comes, for a text
 * that does end there (an event's string, the last output of a stream): the renderer then hides
 * only what its own definition takes as an escape and shows the rest, so `Summer20ESC[24!` shows
 * `Summer2024!` (attack 9). mask() reads such a text both ways.
 */
import { escapeCutAt, hiddenRanges } from "../protocol/ansi";

/**
 * A control character the renderer hides, escaped inside a JSON string or a Python repr at up to
 * three levels (1, 2 or 4 backslashes): `\u001b`, `\\u001b`, `\x1b`. Tab and line feed are shown.
 */
const ESCAPED_CONTROL = /\\{1,4}(?:u00|x)(?:0[0-8bBcCdDeEfF]|1[0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])/g;

/** Text the decoded view may differ in: a control character, or what may be one escaped. */
// eslint-disable-next-line no-control-regex -- the renderer hides C0 and C1 control characters
const MAY_HIDE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]|\\(?:u00|x)[0-9a-fA-F]/;

/** Text the raw view may differ in: a control character. */
// eslint-disable-next-line no-control-regex -- the renderer hides C0 and C1 control characters
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** The text as the app shows it, and for each of its characters where it starts and ends in the original. */
export interface RenderedView {
  text: string;
  start: Int32Array;
  end: Int32Array;
  /** Where an escape sequence cut short by the end of the text starts in the original (its length when none). */
  cut: number;
}

/**
 * A view of `text` (see above): as the app shows it, or with `decode` as it shows the text once
 * its escaped control characters are decoded; null when it is the text itself (with `decode`:
 * also when nothing was decoded, the raw view then being the same).
 */
export function renderedView(text: string, decode: boolean, endCut = true): RenderedView | null {
  if (!(decode ? MAY_HIDE : CONTROL).test(text)) return null;
  // Nothing to decode: the decoded view is the raw one, already read (ordinary coloured output
  // costs one view, not two).
  ESCAPED_CONTROL.lastIndex = 0;
  if (decode && !ESCAPED_CONTROL.test(text)) return null;
  // The escaped control characters decoded, each decoded character knowing its escape's span.
  let decoded = "";
  const decodedStart = new Int32Array(text.length + 1);
  const decodedEnd = new Int32Array(text.length + 1);
  let from = 0;
  const copy = (to: number) => {
    for (let i = from; i < to; i++) {
      decodedStart[decoded.length + i - from] = i;
      decodedEnd[decoded.length + i - from] = i + 1;
    }
    decoded += text.slice(from, to);
  };
  ESCAPED_CONTROL.lastIndex = 0;
  for (let found = decode ? ESCAPED_CONTROL.exec(text) : null; found; found = ESCAPED_CONTROL.exec(text)) {
    copy(found.index);
    decodedStart[decoded.length] = found.index;
    decodedEnd[decoded.length] = found.index + found[0].length;
    decoded += String.fromCharCode(parseInt(found[0].slice(-2), 16));
    from = found.index + found[0].length;
  }
  copy(text.length);
  // An escape cut short at the end (in the decoded text: `\u001b[01;3` too) is left out of the
  // view: shown now it reads otherwise than once its end has come (see Masker.pending).
  const lastLine = decoded.lastIndexOf("\n") + 1;
  const cutAt = endCut ? lastLine + escapeCutAt(decoded.slice(lastLine)) : decoded.length;
  const shown = decoded.slice(0, cutAt);
  // The renderer's hidden ranges, line by line when an OSC may run on (as the app strips it).
  const hidden: number[] = [];
  if (shown.includes("\x1b]")) {
    for (let line = 0; line < shown.length;) {
      const next = shown.indexOf("\n", line);
      const end = next === -1 ? shown.length : next;
      for (const at of hiddenRanges(shown.slice(line, end))) hidden.push(line + at);
      line = end + 1;
    }
  } else for (const at of hiddenRanges(shown)) hidden.push(at);
  let view = "";
  const start = new Int32Array(shown.length + 1);
  const end = new Int32Array(shown.length + 1);
  const keep = (a: number, b: number) => {
    for (let i = a; i < b; i++) {
      start[view.length + i - a] = decodedStart[i]!;
      end[view.length + i - a] = decodedEnd[i]!;
    }
    view += shown.slice(a, b);
  };
  let kept = 0;
  for (let i = 0; i < hidden.length; i += 2) {
    keep(kept, hidden[i]!);
    kept = hidden[i + 1]!;
  }
  keep(kept, shown.length);
  const cut = cutAt < decoded.length ? decodedStart[cutAt]! : text.length;
  if (view === text) return null;
  return { text: view, start: start.subarray(0, view.length), end: end.subarray(0, view.length), cut };
}

/** Private-use characters a marker is picked from (see freeMarker). */
const MARKERS_FROM = 0xe000;
const MARKERS_TO = 0xf900;

/** The private-use characters of `text`, one flag each (see freeMarker). */
export function markersIn(text: string, taken = new Uint8Array(MARKERS_TO - MARKERS_FROM)): Uint8Array {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= MARKERS_FROM && code < MARKERS_TO) taken[code - MARKERS_FROM] = 1;
  }
  return taken;
}

/**
 * A character in neither `text` nor `reserved` (markersIn of the secrets, worked out once): what
 * marks a masked character of the view. Null when every private-use character is taken (6,400 of
 * them in one text).
 */
function freeMarker(text: string, reserved: Uint8Array): string | null {
  const free = markersIn(text, reserved.slice()).indexOf(0);
  return free === -1 ? null : String.fromCharCode(MARKERS_FROM + free);
}

/**
 * Where in `text` the masker finds a secret `view` shows: for each run of marked characters,
 * from where its first character starts to where its last one ends, in order. Null when what
 * is shown is not known (no marker: a text of every private-use character; or a masker that
 * changed a length).
 */
function rangesIn(view: RenderedView, reserved: Uint8Array, mark: (view: string, marker: string) => string): number[] | null {
  const marker = freeMarker(view.text, reserved);
  if (marker === null) return null;
  const marked = mark(view.text, marker);
  if (marked.length !== view.text.length) return null;
  const ranges: number[] = [];
  for (let at = marked.indexOf(marker); at !== -1;) {
    let next = at;
    while (next < marked.length && marked[next] === marker) next++;
    ranges.push(view.start[at]!, view.end[next - 1]!);
    at = marked.indexOf(marker, next);
  }
  return ranges;
}

/**
 * `text` with every secret either view of it shows masked: `mark(view, marker)` is the masker
 * over a view with each matched character replaced by `marker` (the same length). The ranges
 * of both views (see rangesIn), merged where they overlap or touch, each become `mask` over the
 * original. `reserved`: markersIn of the secrets, never a marker.
 */
export function maskRendered(text: string, mask: string, reserved: Uint8Array, mark: (view: string, marker: string) => string): string {
  const found: number[][] = [];
  for (const decode of [false, true]) {
    const view = renderedView(text, decode);
    if (!view) continue;
    // An escape cut short at the end: also as the app shows it when nothing follows (see above).
    const uncut = view.cut < text.length ? renderedView(text, decode, false) : null;
    for (const read of uncut ? [view, uncut] : [view]) {
      const ranges = rangesIn(read, reserved, mark);
      // What is shown is not known: the text goes masked whole.
      if (ranges === null) return mask;
      if (ranges.length > 0) found.push(ranges);
    }
  }
  if (found.length === 0) return text;
  // Each reading's ranges are in order and apart; merged as sorted lists, each range's start
  // taken from the list whose next start is lowest (linear for the two lists of a text that
  // ends with no cut escape; at most four lists).
  const next = found.map(() => 0);
  let out = "";
  let done = -1;
  for (;;) {
    let list = -1;
    for (let k = 0; k < found.length; k++) {
      if (next[k]! < found[k]!.length && (list === -1 || found[k]![next[k]!]! < found[list]![next[list]!]!)) list = k;
    }
    if (list === -1) break;
    const start = found[list]![next[list]!]!;
    const end = found[list]![next[list]! + 1]!;
    next[list]! += 2;
    if (start <= done) done = Math.max(done, end);
    else {
      out += text.slice(Math.max(done, 0), start) + mask;
      done = end;
    }
  }
  return out + text.slice(done);
}

/**
 * The escapes looked at before the end of a text besides the longest form of a secret (see
 * pendingRendered): grep's colours around each digit of a 64-character secret are some 1,300
 * characters, an OSC 8 link a few hundred.
 */
const PENDING_ESCAPES = 16 * 1024;

/**
 * How many characters at the end of `text` may be the start of a secret as the app shows it
 * (`pendingOf`, the masker's pending, over the view), or an escape cut short by the end: the
 * batcher holds them back, so the escape is read whole and the secret around it is masked whole.
 * Only the last `longest` + PENDING_ESCAPES characters are looked at: what is held stays bounded,
 * and so does the cost of each call (the batcher asks at every flush while a line grows; over
 * the whole line that was quadratic in a line of escapes with no end).
 */
export function pendingRendered(text: string, pendingOf: (view: string) => number, longest: number): number {
  const tail = text.length > longest + PENDING_ESCAPES ? text.slice(-(longest + PENDING_ESCAPES)) : text;
  let from = tail.length;
  for (const decode of [false, true]) {
    const view = renderedView(tail, decode);
    if (!view) continue;
    const held = pendingOf(view.text);
    from = Math.min(from, held > 0 ? Math.min(view.start[view.text.length - held]!, view.cut) : view.cut);
  }
  return tail.length - from;
}
