/**
 * An escape sequence "cut short" at the end of a text that really ends there (attack 9 on issue 34).
 *
 * The masker's views (server/security/mask-rendered.ts, renderedView) leave out an escape
 * sequence cut short by the end of the text (escapeCutAt: `ESC[` with parameters and no final
 * byte, `ESC` with intermediates only, `\x9b` with parameters): shown now, it would read
 * otherwise once its end came. That is right for pending() (the batcher holds it until more
 * output comes), but mask() also leaves it out of the view, and a text does end there: every
 * string of an event (maskJson masks each string on its own: a `set_stats` value, a task name),
 * and the output at the end of the stream (the batcher's stop() masks what it held). The app
 * has no "later": stripAnsi / parseAnsi take `ESC[` alone as a two-byte escape (or ESC, or
 * `\x9b`, alone) and show what follows it. So a password ending with a digit or one of
 * ` !"#$%&'()*+,-./:;<=>?` (`Summer2024!`) written `Summer2024ESC!` or `Summer20ESC[24!` at
 * the end of a string is stored unmasked, and shown whole by the app (the output pane, the
 * plain-text download) and by the Results panel's reader (`"Summer2024\u001b!"` in
 * GET /api/jobs/ID/artifacts).
 *
 * Failed before mask() read such a text both ways (server/security/mask-rendered.ts): every
 * case below was shown whole. In the middle of the stream (a line break, or more output after
 * it) the same text was masked already (controls at the end).
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { stripAnsi } from "../../server/protocol/ansi";
import { OutputBatcher, maskEvent } from "../../server/rte/output-batcher";
import { createMasker } from "../../server/security/mask";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(1_700_000_000_000);
});
afterEach(() => vi.useRealTimers());

const SECRETS = ["Summer2024!", "hunter2-secret-1234", "Wr4ngl3r-s3cret-7f2a9/", "p@ss w0rd 42;"];

/** Every way of writing `secret` with a cut escape before its last characters that the app still shows whole. */
function cutForms(secret: string): string[] {
  const forms: string[] = [];
  for (let k = 1; k <= Math.min(4, secret.length - 1); k++) {
    const head = secret.slice(0, -k);
    const tail = secret.slice(-k);
    // ESC[ (then parameters, then intermediates), \x9b the same, ESC then intermediates only.
    if (/^[0-?]*[ -/]*$/.test(tail)) forms.push(`${head}\x1b[${tail}`, `${head}\x9b${tail}`);
    if (/^[ -/]*$/.test(tail)) forms.push(`${head}\x1b${tail}`);
  }
  return forms;
}

function printedAtTheEnd(text: string, mask: ReturnType<typeof createMasker>): string {
  const out: string[] = [];
  const batcher = new OutputBatcher({
    intervalMs: 500,
    maxBatchBytes: 64 * 1024,
    maxBuffer: 50 * 1024 * 1024,
    mask,
    emit: (items) => items.forEach((item) => item.kind === "output" && out.push(item.text)),
  });
  batcher.start();
  batcher.write("stdout", `PLAY RECAP\nlocalhost : ok=1\npw=${text}`);
  vi.advanceTimersByTime(2_000);
  batcher.stop();
  return out.join("");
}

it("a secret whose end follows a cut escape at the very end of a text is masked (events, end of the output)", () => {
  const shown: string[] = [];
  let cases = 0;
  for (const secret of SECRETS) {
    const mask = createMasker([secret]);
    for (const form of cutForms(secret)) {
      cases++;
      // Controls: the same text with a line break after it, and with more output after it, is masked.
      expect(stripAnsi(mask(`pw=${form}\n`))).not.toContain(secret);
      const event = maskEvent({ event: "playbook_on_stats", event_data: { artifact_data: { pw: form } } }, mask) as {
        event_data: { artifact_data: { pw: string } };
      };
      if (stripAnsi(event.event_data.artifact_data.pw).includes(secret)) shown.push(`event ${JSON.stringify(form)}`);
      if (stripAnsi(printedAtTheEnd(form, mask)).includes(secret)) shown.push(`output end ${JSON.stringify(form)}`);
    }
  }
  expect(cases).toBeGreaterThan(20);
  expect(shown, `${shown.length} of ${cases * 2}`).toEqual([]);
});
