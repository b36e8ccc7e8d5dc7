/**
 * Fifth attack on issue 34: a password of digits (a PIN) handed back with set_stats as a number
 * (`{{ pin | int }}`, or in a list: `{{ [pin | int] }}`) was a JSON number in the `stats` event,
 * and maskJson masked strings only: `{"pin_list":[48151623]}` in the spool, the database and
 * the artifacts API (test/integration/set-stats-numeric-secret-masked.test.ts). A number whose
 * decimal form holds a secret now becomes the mask.
 */
import { describe, expect, it } from "vitest";
import { createMasker, MASK, maskJson } from "../../server/security/mask";
import { maskEvent } from "../../server/rte/output-batcher";

describe("numbers in JSON values (events, set_stats)", () => {
  const mask = createMasker(["48151623", "pw-Xk9#pQ2"]);

  it("masks a number equal to a secret, in objects and lists", () => {
    expect(maskJson({ pin_number: 48151623, pin_list: [48151623, 7], nested: { n: [[48151623]] } }, mask)).toEqual({
      pin_number: MASK,
      pin_list: [MASK, 7],
      nested: { n: [[MASK]] },
    });
  });

  it("masks a number whose digits hold a secret, as its text would be masked", () => {
    expect(mask("1048151623")).toBe(`10${MASK}`);
    expect(maskJson([1048151623, 481516230, -48151623, 48151623.5], mask)).toEqual([MASK, MASK, MASK, MASK]);
  });

  it("leaves other numbers, booleans and null as they are", () => {
    const value = { a: 4815162, b: 0, c: -1.5, d: 1e21, e: true, f: null, g: 12345678 };
    expect(maskJson(value, mask)).toEqual(value);
  });

  it("masks the number in a stats event, the event's other numbers kept", () => {
    const event = { v: 1, type: "stats", hosts: [{ host: "h", ok: 3 }], custom: { _run: { pin_list: [48151623], count: 2 } } };
    expect(maskEvent(event, mask)).toEqual({
      v: 1,
      type: "stats",
      hosts: [{ host: "h", ok: 3 }],
      custom: { _run: { pin_list: [MASK], count: 2 } },
    });
  });

  it("masks a PIN with leading zeros as the number it becomes (int drops them), in text and in JSON", () => {
    const zeros = createMasker(["00481516"]);
    expect(zeros("pin: 00481516")).toBe(`pin: ${MASK}`);
    expect(zeros("pin: 481516")).toBe(`pin: ${MASK}`);
    expect(maskJson({ pin: 481516 }, zeros)).toEqual({ pin: MASK });
    // Too short once the zeros are gone: masked only as written.
    expect(createMasker(["000012"])("12 000012")).toBe(`12 ${MASK}`);
  });
});
