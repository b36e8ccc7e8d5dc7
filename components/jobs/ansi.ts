import { createElement, type ReactNode } from "react";

/**
 * ANSI SGR -> styled React nodes for the job output pane (the parsing itself is
 * server/protocol/ansi.ts, shared with the app).
 *
 * ansible-playbook colours its output with a handful of SGR codes (0;32 ok, 0;33 changed,
 * 0;31 failed, 0;36 skipped, 1;35 warnings). We render foreground colours 30-37 / 90-97,
 * bold and reset; every other escape sequence and control character is dropped so that
 * cursor movement or terminal titles never show up as garbage. The result is plain text
 * and <span>s built with createElement, so React escapes the text: output that contains
 * HTML can never become markup.
 */
import { type AnsiColor, type AnsiSegment, type AnsiStyle, parseAnsi } from "@/server/protocol/ansi";

export { ANSI_COLORS, PLAIN, parseAnsi, sgrToStyle, stripAnsi, styleToSgr } from "@/server/protocol/ansi";
export type { AnsiColor, AnsiSegment, AnsiStyle } from "@/server/protocol/ansi";

/**
 * Tuned for the dark output pane: pure black would be invisible on it, so "black" is a
 * muted grey. Literal class names, so Tailwind's scanner sees them.
 */
export const ANSI_FG_CLASS: Record<AnsiColor, string> = {
  black: "text-zinc-500",
  red: "text-red-400",
  green: "text-green-400",
  yellow: "text-yellow-300",
  blue: "text-sky-400",
  magenta: "text-fuchsia-400",
  cyan: "text-cyan-400",
  white: "text-zinc-100",
  "bright-black": "text-zinc-400",
  "bright-red": "text-red-300",
  "bright-green": "text-green-300",
  "bright-yellow": "text-yellow-200",
  "bright-blue": "text-sky-300",
  "bright-magenta": "text-fuchsia-300",
  "bright-cyan": "text-cyan-300",
  "bright-white": "text-white",
};

export const ANSI_BOLD_CLASS = "font-bold";

export function segmentClassName(segment: AnsiStyle): string {
  const classes: string[] = [];
  if (segment.fg) classes.push(ANSI_FG_CLASS[segment.fg]);
  if (segment.bold) classes.push(ANSI_BOLD_CLASS);
  return classes.join(" ");
}

/** React nodes for parsed segments: unstyled runs as text, styled runs as <span>s. */
export function renderSegments(segments: AnsiSegment[]): ReactNode[] {
  return segments.map((segment, index) => {
    const className = segmentClassName(segment);
    return className === "" ? segment.text : createElement("span", { key: index, className }, segment.text);
  });
}

/** React nodes for one piece of output. */
export function renderAnsi(input: string): ReactNode[] {
  return renderSegments(parseAnsi(input).segments);
}
