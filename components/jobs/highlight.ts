import type { AnsiSegment } from "./ansi";

/** A piece of a line: a run of one colour, `match` when it is part of the searched text. */
export interface HighlightedSegment extends AnsiSegment {
  match: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Where `query` occurs in `text`, case-insensitively, as [start, end) offsets, left to right
 * without overlaps. Simple case folding (the regular expression `i` flag) keeps offsets in
 * the text's own units, whatever the characters.
 */
export function findMatches(text: string, query: string): [number, number][] {
  if (query === "" || text === "") return [];
  const pattern = new RegExp(escapeRegExp(query), "giu");
  const out: [number, number][] = [];
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    out.push([match.index, match.index + match[0].length]);
    if (match[0].length === 0) pattern.lastIndex++;
  }
  return out;
}

/**
 * The colour segments of a line with the searched text marked: the text without colour
 * codes is searched (as the server does), and a segment that a match starts or ends in is
 * cut there. Colours stay as they were (a match across two colours is two marked pieces),
 * and the text is the same once joined.
 */
export function highlightSegments(segments: readonly AnsiSegment[], query: string): HighlightedSegment[] {
  const plain = segments.map((s) => s.text).join("");
  const matches = findMatches(plain, query);
  if (matches.length === 0) return segments.map((s) => ({ ...s, match: false }));
  const out: HighlightedSegment[] = [];
  let offset = 0;
  let m = 0;
  for (const segment of segments) {
    const end = offset + segment.text.length;
    let cursor = offset;
    while (cursor < end) {
      // Skip matches that ended before here.
      while (m < matches.length && matches[m]![1] <= cursor) m++;
      const match = matches[m];
      if (!match || match[0] >= end) {
        out.push({ ...segment, text: segment.text.slice(cursor - offset), match: false });
        cursor = end;
      } else if (match[0] > cursor) {
        out.push({ ...segment, text: segment.text.slice(cursor - offset, match[0] - offset), match: false });
        cursor = match[0];
      } else {
        const stop = Math.min(match[1], end);
        out.push({ ...segment, text: segment.text.slice(cursor - offset, stop - offset), match: true });
        cursor = stop;
      }
    }
    offset = end;
  }
  return out;
}
