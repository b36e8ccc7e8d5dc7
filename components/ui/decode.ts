/**
 * A route segment as the user typed it. Malformed escapes ("%E0%A4%A") would make
 * decodeURIComponent throw and turn a bad link into a 500; the raw text is the better name.
 */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
