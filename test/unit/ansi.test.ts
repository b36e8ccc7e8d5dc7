import { createElement, Fragment } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ANSI_FG_CLASS, parseAnsi, renderAnsi, stripAnsi } from "../../components/jobs/ansi";

const ESC = "\x1b";

function html(text: string): string {
  return renderToStaticMarkup(createElement(Fragment, null, ...renderAnsi(text)));
}

describe("parseAnsi", () => {
  it("leaves plain text as one unstyled segment", () => {
    expect(parseAnsi("PLAY [all] ****").segments).toEqual([{ text: "PLAY [all] ****", fg: null, bold: false }]);
  });

  it("returns no segments for empty input or input made only of escapes", () => {
    expect(parseAnsi("").segments).toEqual([]);
    expect(parseAnsi(`${ESC}[0;32m${ESC}[0m`).segments).toEqual([]);
  });

  it("colours ansible's ok / changed / failed / skipped lines and resets after them", () => {
    const line = `${ESC}[0;32mok: [node1]${ESC}[0m\n${ESC}[0;33mchanged: [node2]${ESC}[0m\n${ESC}[0;31mfatal: [node3]${ESC}[0m tail`;
    expect(parseAnsi(line).segments).toEqual([
      { text: "ok: [node1]", fg: "green", bold: false },
      { text: "\n", fg: null, bold: false },
      { text: "changed: [node2]", fg: "yellow", bold: false },
      { text: "\n", fg: null, bold: false },
      { text: "fatal: [node3]", fg: "red", bold: false },
      { text: " tail", fg: null, bold: false },
    ]);
  });

  it("maps every code 30-37 and 90-97 to its colour", () => {
    const base = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];
    for (let i = 0; i < 8; i++) {
      expect(parseAnsi(`${ESC}[${30 + i}mx`).segments[0]?.fg).toBe(base[i]);
      expect(parseAnsi(`${ESC}[${90 + i}mx`).segments[0]?.fg).toBe(`bright-${base[i]}`);
    }
  });

  it("handles bold with colour (1;35 is ansible's warning style), 22 and 39", () => {
    expect(parseAnsi(`${ESC}[1;35m[WARNING]${ESC}[22m plain colour${ESC}[39m none`).segments).toEqual([
      { text: "[WARNING]", fg: "magenta", bold: true },
      { text: " plain colour", fg: "magenta", bold: false },
      { text: " none", fg: null, bold: false },
    ]);
  });

  it("treats ESC[m and empty parameters as reset", () => {
    expect(parseAnsi(`${ESC}[1;31ma${ESC}[mb${ESC}[33;mc`).segments).toEqual([
      { text: "a", fg: "red", bold: true },
      // "33;" is "33" then "0": the reset wins, so "c" stays plain and merges with "b".
      { text: "bc", fg: null, bold: false },
    ]);
  });

  it("merges adjacent runs of the same style", () => {
    expect(parseAnsi(`${ESC}[32mab${ESC}[32mcd`).segments).toEqual([{ text: "abcd", fg: "green", bold: false }]);
  });

  it("skips the arguments of 256-colour and true-colour codes", () => {
    // Without skipping, "38;5;1" would read the trailing 1 as bold, "38;2;1;31;0" as red.
    expect(parseAnsi(`${ESC}[38;5;1mx`).segments).toEqual([{ text: "x", fg: "red", bold: false }]);
    expect(parseAnsi(`${ESC}[38;5;196mx`).segments).toEqual([{ text: "x", fg: null, bold: false }]);
    expect(parseAnsi(`${ESC}[38;2;1;31;0mx`).segments).toEqual([{ text: "x", fg: null, bold: false }]);
    expect(parseAnsi(`${ESC}[48;5;1;32mx`).segments).toEqual([{ text: "x", fg: "green", bold: false }]);
  });

  it("ignores SGR codes it does not render (underline, background, blink)", () => {
    expect(parseAnsi(`${ESC}[4;41;5mx`).segments).toEqual([{ text: "x", fg: null, bold: false }]);
  });

  it("strips non-SGR escape sequences and control characters but keeps tabs and newlines", () => {
    const text = `a${ESC}[2Kb${ESC}[1Ac${ESC}]0;title\x07d${ESC}]8;;http://x${ESC}\\e${ESC}(Bf\r\n\tg\x08h${ESC}[?25li${ESC}`;
    expect(stripAnsi(text)).toBe("abcdef\n\tghi");
  });

  it("does not style text from a non-SGR CSI sequence ending in another letter", () => {
    expect(parseAnsi(`${ESC}[31Hx`).segments).toEqual([{ text: "x", fg: null, bold: false }]);
  });

  it("carries the style across calls when given the previous end style", () => {
    const first = parseAnsi(`${ESC}[33mchanged: [a`);
    expect(first.style).toEqual({ fg: "yellow", bold: false });
    expect(parseAnsi("]", first.style).segments).toEqual([{ text: "]", fg: "yellow", bold: false }]);
  });
});

describe("renderAnsi", () => {
  it("renders styled runs as spans with the colour classes and plain runs as text", () => {
    expect(html(`${ESC}[1;32mok${ESC}[0m done`)).toBe(`<span class="${ANSI_FG_CLASS.green} font-bold">ok</span> done`);
  });

  it("escapes HTML in the output instead of rendering it", () => {
    const markup = html(`${ESC}[31m<img src=x onerror=alert(1)>${ESC}[0m & <script>alert("x")</script>`);
    expect(markup).not.toContain("<img");
    expect(markup).not.toContain("<script");
    expect(markup).toBe(
      `<span class="${ANSI_FG_CLASS.red}">&lt;img src=x onerror=alert(1)&gt;</span> &amp; &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;`,
    );
  });
});
