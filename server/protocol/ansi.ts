/**
 * ANSI SGR parsing for job output, shared by the app (line windows carry the colour state at
 * their first line, GET /api/jobs/ID/lines) and the browser (components/jobs/ansi.ts renders
 * the segments). A leaf: it imports nothing.
 *
 * ansible-playbook colours its output with a handful of SGR codes (0;32 ok, 0;33 changed,
 * 0;31 failed, 0;36 skipped, 1;35 warnings). Foreground colours 30-37 / 90-97, bold and reset
 * are kept; every other escape sequence and control character is dropped so that cursor
 * movement or terminal titles never show up as garbage.
 */

export const ANSI_COLORS = [
  "black",
  "red",
  "green",
  "yellow",
  "blue",
  "magenta",
  "cyan",
  "white",
  "bright-black",
  "bright-red",
  "bright-green",
  "bright-yellow",
  "bright-blue",
  "bright-magenta",
  "bright-cyan",
  "bright-white",
] as const;
export type AnsiColor = (typeof ANSI_COLORS)[number];

export interface AnsiStyle {
  fg: AnsiColor | null;
  bold: boolean;
}

export interface AnsiSegment extends AnsiStyle {
  text: string;
}

export const PLAIN: AnsiStyle = { fg: null, bold: false };

/*
 * One pass over the text finds, in order of the alternatives:
 *  1. CSI: ESC [ or its 8-bit form (U+009B), params, intermediates, final (group 1-3). A
 *     terminal reads `\x9b1m` as one sequence: showing its `1m` would let a secret with one
 *     inside it read whole in a terminal and not here, and the masker reads what this shows
 *     (server/security/mask-rendered.ts).
 *  2. Other ESC-prefixed sequences: OSC (ESC ] ... BEL or ESC \, or unterminated), and
 *     two-byte escapes (ESC ( B, ESC 7, ...); a lone trailing ESC is matched too.
 *  3. Other C0/C1 control characters except tab and newline (\r, \b, bell, ...).
 */
const ESCAPE_OR_CONTROL =
  // eslint-disable-next-line no-control-regex
  /(?:\x1b\[|\x9b)([0-?]*)([ -/]*)([@-~])|\x1b(?:\][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~])?|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

// The same alternatives, to test for any match without the global flag's lastIndex state.
// eslint-disable-next-line no-control-regex
const ESCAPE_OR_CONTROL_TEST = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

function applySgr(style: AnsiStyle, params: string): AnsiStyle {
  // Colon sub-parameters (38:5:196) are one parameter; we do not render them.
  const codes = params === "" ? [0] : params.split(";").map((p) => (p === "" ? 0 : p.includes(":") ? -1 : Number(p)));
  let { fg, bold } = style;
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] ?? -1;
    if (code === 0) {
      fg = null;
      bold = false;
    } else if (code === 1) {
      bold = true;
    } else if (code === 22) {
      bold = false;
    } else if (code >= 30 && code <= 37) {
      fg = ANSI_COLORS[code - 30] ?? null;
    } else if (code >= 90 && code <= 97) {
      fg = ANSI_COLORS[code - 90 + 8] ?? null;
    } else if (code === 39) {
      fg = null;
    } else if (code === 38 || code === 48) {
      // Extended colour: 38;5;N or 38;2;R;G;B. Its arguments must be skipped, otherwise
      // "38;5;1" would also read as "bold". The 16 basic entries of the 256 palette are
      // ours to show; other indexes and true colour are left uncoloured.
      const mode = codes[i + 1];
      if (mode === 5) {
        const index = codes[i + 2];
        if (code === 38 && index !== undefined && index >= 0 && index < 16) fg = ANSI_COLORS[index] ?? null;
        i += 2;
      } else if (mode === 2) {
        i += 4;
      } else {
        i += 1;
      }
    }
    // Everything else (underline, background, blink, ...) is deliberately ignored.
  }
  return { fg, bold };
}

function sameStyle(a: AnsiStyle, b: AnsiStyle): boolean {
  return a.fg === b.fg && a.bold === b.bold;
}

/**
 * Split text into runs of equal style. `initial` lets a caller carry a style across
 * chunks; the style at the end is returned for the same reason.
 */
export function parseAnsi(input: string, initial: AnsiStyle = PLAIN): { segments: AnsiSegment[]; style: AnsiStyle } {
  const segments: AnsiSegment[] = [];
  let style = initial;
  let cursor = 0;

  const push = (text: string) => {
    if (text === "") return;
    const last = segments[segments.length - 1];
    if (last && sameStyle(last, style)) last.text += text;
    else segments.push({ text, fg: style.fg, bold: style.bold });
  };

  ESCAPE_OR_CONTROL.lastIndex = 0;
  for (let match = ESCAPE_OR_CONTROL.exec(input); match !== null; match = ESCAPE_OR_CONTROL.exec(input)) {
    push(input.slice(cursor, match.index));
    cursor = match.index + match[0].length;
    const [, params, intermediates, final] = match;
    if (final === "m" && intermediates === "" && params !== undefined && /^[0-9;:]*$/.test(params)) {
      style = applySgr(style, params);
    }
  }
  push(input.slice(cursor));
  return { segments, style };
}

/** Text without any escape sequence or control character (tab and newline kept). */
export function stripAnsi(input: string): string {
  // What parseAnsi keeps is exactly the text between the matches.
  return ESCAPE_OR_CONTROL_TEST.test(input) ? input.replace(ESCAPE_OR_CONTROL, "") : input;
}

/**
 * stripAnsi line by line, as the output pane reads the output: an OSC sequence left open ends
 * at its line's end instead of running on to a BEL lines later, which would join the lines
 * around it (and the pieces of a secret split there: attack 9 on issue 34, the preview's plan).
 */
export function stripAnsiByLine(input: string): string {
  return input.includes("\x1b]") ? input.split("\n").map(stripAnsi).join("\n") : stripAnsi(input);
}

/**
 * Where each escape sequence and control character of `input` is, as [start, end) pairs one
 * after the other: what parseAnsi and stripAnsi drop. The masker reads the output as the app
 * shows it by this same definition (server/security/mask-rendered.ts): a secret with an escape
 * inside it is stored with the escape, and shown whole without it.
 */
export function hiddenRanges(input: string): number[] {
  const ranges: number[] = [];
  if (!ESCAPE_OR_CONTROL_TEST.test(input)) return ranges;
  ESCAPE_OR_CONTROL.lastIndex = 0;
  for (let match = ESCAPE_OR_CONTROL.exec(input); match !== null; match = ESCAPE_OR_CONTROL.exec(input)) {
    // One range for a run of them: a run of a million escapes is two numbers, not two million.
    if (ranges.at(-1) === match.index) ranges[ranges.length - 1] = match.index + match[0].length;
    else ranges.push(match.index, match.index + match[0].length);
  }
  return ranges;
}

/*
 * An escape sequence of ESCAPE_OR_CONTROL cut short by the end of a text: ESC alone or with
 * intermediates only (`ESC(` of `ESC(B`), a CSI without its final byte (`ESC[01;3`: then
 * ESCAPE_OR_CONTROL takes `ESC[` as a two-byte escape and shows `01;3`; `\x9b01;3`), an OSC without its
 * terminator on its line (the app strips an OSC line by line: server/jobs/output.ts).
 */
// eslint-disable-next-line no-control-regex
const ESCAPE_CUT = /^(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b\n]*|[ -/]*)|\x9b[0-?]*[ -/]*)$/;

/**
 * Where an escape sequence cut short by the end of `input` starts, or input.length. Shown now,
 * it reads otherwise than with the text that completes it: output that ends inside one waits
 * for the rest (the masker's pending), or a secret around it would be read whole once it came.
 */
export function escapeCutAt(input: string): number {
  const at = Math.max(input.lastIndexOf("\x1b"), input.lastIndexOf("\x9b"));
  return at !== -1 && ESCAPE_CUT.test(input.slice(at)) ? at : input.length;
}

/** The style in force after `input`, starting from `initial` (parseAnsi's end style, without building segments). */
export function advanceStyle(initial: AnsiStyle, input: string): AnsiStyle {
  if (!input.includes("\x1b") && !input.includes("\x9b")) return initial;
  let style = initial;
  ESCAPE_OR_CONTROL.lastIndex = 0;
  for (let match = ESCAPE_OR_CONTROL.exec(input); match !== null; match = ESCAPE_OR_CONTROL.exec(input)) {
    const [, params, intermediates, final] = match;
    if (final === "m" && intermediates === "" && params !== undefined && /^[0-9;:]*$/.test(params)) style = applySgr(style, params);
  }
  return style;
}

/** The SGR sequence that sets `style` from plain; null for plain. */
export function styleToSgr(style: AnsiStyle): string | null {
  const codes: number[] = [];
  if (style.bold) codes.push(1);
  if (style.fg) {
    const index = ANSI_COLORS.indexOf(style.fg);
    codes.push(index < 8 ? 30 + index : 90 + index - 8);
  }
  return codes.length === 0 ? null : `\x1b[${codes.join(";")}m`;
}

/** The style an SGR state string (as styleToSgr writes it, or null) stands for. */
export function sgrToStyle(sgr: string | null | undefined): AnsiStyle {
  return sgr ? parseAnsi(sgr).style : PLAIN;
}
