/**
 * Masking the output as the app shows it. The app drops every escape sequence and control
 * character when it renders output (parseAnsi in the output pane) or serves it as plain text
 * (stripAnsi: `GET /api/jobs/ID/log?ansi=0`), so a secret with an escape inside it (grep
 * --color=always highlighting its digits, `ESC[K`, an OSC title, a NUL) was stored unmasked and
 * shown whole (attack 7 on issue 34). Printed inside a JSON string (`debug` of stdout_lines),
 * the same escapes are `\u001b[01;31m`, which a reader skips as easily.
 *
 * So the masker reads a second view of the text: JSON- and repr-escaped control characters
 * decoded (`\u001b`, `\\u001b`, `\x1b`), then every escape sequence and control character
 * taken out by the renderer's own definition (hiddenRanges in server/protocol/ansi.ts, line by
 * line as the app strips an OSC), each character of the view knowing where it came from. The
 * masker's patterns run over the view, each match marked character for character; each run of
 * marked characters is mapped back onto the text and masked there whole, from its first
 * character to its last, the escapes between its pieces included. Linear: one pass to build the
 * view, the masker's own passes over it, one pass to map back.
 */
import { escapeCutAt, hiddenRanges } from "../protocol/ansi";

/**
 * A control character the renderer hides, escaped inside a JSON string or a Python repr at up to
 * three levels (1, 2 or 4 backslashes): `\u001b`, `\\u001b`, `\x1b`. Tab and line feed are shown.
 */
const ESCAPED_CONTROL = /\\{1,4}(?:u00|x)(?:0[0-8bBcCdDeEfF]|1[0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])/g;

/** Text the view may differ in: a control character, or what may be one escaped. */
// eslint-disable-next-line no-control-regex -- the renderer hides C0 and C1 control characters
const MAY_HIDE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]|\\(?:u00|x)[0-9a-fA-F]/;

/** The text as the app shows it, and for each of its characters where it starts and ends in the original. */
export interface RenderedView {
  text: string;
  start: Int32Array;
  end: Int32Array;
  /** Where an escape sequence cut short by the end of the text starts in the original (its length when none). */
  cut: number;
}

/** The view of `text` (see above); null when it is the text itself. */
export function renderedView(text: string): RenderedView | null {
  if (!MAY_HIDE.test(text)) return null;
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
  for (let found = ESCAPED_CONTROL.exec(text); found; found = ESCAPED_CONTROL.exec(text)) {
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
  const cutAt = lastLine + escapeCutAt(decoded.slice(lastLine));
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
 * `text` with every secret the view of it shows masked: `mark(view, marker)` is the masker over
 * the view with each matched character replaced by `marker` (the same length). Each run of
 * marked characters becomes `mask` over the original, from where its first character starts to
 * where its last one ends. `reserved`: markersIn of the secrets, never a marker.
 */
export function maskRendered(text: string, mask: string, reserved: Uint8Array, mark: (view: string, marker: string) => string): string {
  const view = renderedView(text);
  if (!view) return text;
  const marker = freeMarker(view.text, reserved);
  // No marker (a text of every private-use character) or a masker that changed a length: what
  // is shown is not known, the text goes masked whole.
  if (marker === null) return mask;
  const marked = mark(view.text, marker);
  if (marked.length !== view.text.length) return mask;
  let out = "";
  let done = 0;
  for (let at = marked.indexOf(marker); at !== -1;) {
    let next = at;
    while (next < marked.length && marked[next] === marker) next++;
    out += text.slice(done, view.start[at]!) + mask;
    done = view.end[next - 1]!;
    at = marked.indexOf(marker, next);
  }
  return done === 0 ? text : out + text.slice(done);
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
  const view = renderedView(tail);
  if (!view) return 0;
  const held = pendingOf(view.text);
  const from = held > 0 ? Math.min(view.start[view.text.length - held]!, view.cut) : view.cut;
  return tail.length - from;
}
