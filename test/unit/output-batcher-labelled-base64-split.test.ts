/**
 * Third attack on issue 34, item 3 (a secret split across two writes) and the second round's
 * fix "a pause inside the first line of wrapped base64". Each case prints a text in two writes
 * with a pause (4 intervals) between them, at every cut point, and checks that what the batcher
 * emitted holds no piece of the secret that the same text printed in one write does not hold.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMasker } from "../../server/security/mask";
import { OutputBatcher } from "../../server/rte/output-batcher";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";

const INTERVAL = 500;
let emitted: UnnumberedItem[][];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(1_700_000_000_000);
  emitted = [];
});
afterEach(() => {
  vi.useRealTimers();
});

function printed(secrets: string[], writes: string[]): string {
  emitted = [];
  const b = new OutputBatcher({
    intervalMs: INTERVAL,
    maxBatchBytes: 64 * 1024,
    maxBuffer: 50 * 1024 * 1024,
    mask: createMasker(secrets),
    emit: (items) => emitted.push(items),
  });
  b.start();
  for (const [i, w] of writes.entries()) {
    if (i > 0) vi.advanceTimersByTime(4 * INTERVAL);
    b.write("stdout", w);
  }
  vi.advanceTimersByTime(INTERVAL);
  b.stop();
  return emitted
    .flat()
    .map((item) => (item.kind === "output" ? item.text : ""))
    .join("");
}

/** 8-character windows of the secret's base64 (every alignment): what must not be printed. */
function base64Windows(secret: string): string[] {
  const windows: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const bytes = Buffer.from(secret).subarray(skip);
    const middle = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
    for (let at = 0; at + 8 <= middle.length; at += 2) windows.push(middle.slice(at, at + 8));
  }
  return windows;
}

/** Every cut point at which the two-write output leaks a window the one-write output does not. */
function leakyCuts(secret: string, text: string, windows: string[], join: (s: string) => string): string[] {
  const whole = join(printed([secret], [text]));
  const wholeLeaks = windows.filter((w) => whole.includes(w));
  expect(wholeLeaks, `printed in one write: ${JSON.stringify(whole)}`).toEqual([]);
  const bad: string[] = [];
  for (let at = 1; at < text.length; at++) {
    const out = join(printed([secret], [text.slice(0, at), text.slice(at)]));
    const leaked = windows.filter((w) => out.includes(w));
    if (leaked.length > 0) bad.push(`cut at ${at}: ${JSON.stringify(out)}`);
  }
  return bad;
}

describe("wrapped base64 with text before it on its first line, cut by a pause", () => {
  const secret = "monitoring-token-8d7f6e5a4b3c2d1e";
  const b64 = Buffer.from("x".repeat(45) + secret + "/" + "z".repeat(80)).toString("base64");
  const lines = b64.match(/.{1,76}/g)!;
  for (const [label, text, join] of [
    ["a YAML key, raw lines", `  token: ${lines.join("\n")}\n`, (s: string) => s.replace(/\n/g, "")],
    ["a shell variable, raw lines", `export TOKEN=${lines.join("\n")}\n`, (s: string) => s.replace(/\n/g, "")],
    ["a JSON stdout (escaped line breaks)", `    "stdout": "${lines.join("\\n")}",\n`, (s: string) => s.replace(/\\n/g, "")],
    ["a JSON msg list on one line", `    "msg": ["${lines.join('", "')}"]\n`, (s: string) => s.replace(/", "/g, "")],
    ["a to_yaml flow list", `    "msg": "[${lines.join(", ")}]\\n"\n`, (s: string) => s.replace(/, /g, "")],
  ] as const) {
    it(`masks 76-column base64 after ${label} on the first line, a pause anywhere`, () => {
      const bad = leakyCuts(secret, text, base64Windows(secret), join);
      expect(bad, `${bad.length} of ${text.length - 1} cuts leak; first: ${bad.slice(0, 2).join("\n")}`).toEqual([]);
    });
  }
});

describe("a secret holding a line break, cut by a pause after the break", () => {
  it("masks a multi-line secret (an ssh private key typed into a form) printed raw, a pause after its first line", () => {
    const secret =
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDx0nT7hK3c2mK9yQv9Qb0Yk3n7r5f1uQm1sQ0m5xXkTwAAAJg2n5Xl\n-----END OPENSSH PRIVATE KEY-----";
    const text = `${secret}\n`;
    const whole = printed([secret], [text]);
    expect(whole).toBe("********\n");
    const bad: string[] = [];
    for (const at of [36, 107, 174]) {
      const out = printed([secret], [text.slice(0, at), text.slice(at)]);
      if (out.includes("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ") || out.includes("QyNTUxOQAAACDx0nT7hK3c2mK9yQv9Qb0Yk3n7"))
        bad.push(`cut at ${at}: ${JSON.stringify(out)}`);
    }
    expect(bad).toEqual([]);
  });

  it("masks a secret with spaces folded by to_nice_yaml, a pause after the fold", () => {
    const secret = "correct horse battery staple and a long passphrase with many words in it here";
    // PyYAML folds a plain scalar longer than 80 columns at a space: line break and indentation.
    const text = `ok: [localhost] => \n  msg:\n    value: correct horse battery staple and a long passphrase with many\n      words in it here\n`;
    const whole = printed([secret], [text]);
    expect(whole).not.toContain("battery staple");
    const at = text.indexOf("many\n") + 5;
    const out = printed([secret], [text.slice(0, at), text.slice(at)]);
    expect(out).not.toContain("battery staple");
  });
});
