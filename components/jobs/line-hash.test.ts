import { afterEach, describe, expect, it, vi } from "vitest";
import { goToLine, lineHash, onLineLinkClick, parseLineHash, subscribeLineHash } from "./line-hash";

describe("parseLineHash", () => {
  it("reads #L and a line number", () => {
    expect(parseLineHash("#L1")).toBe(1);
    expect(parseLineHash("#L1234")).toBe(1234);
    expect(parseLineHash("#L1000000")).toBe(1_000_000);
    expect(parseLineHash(lineHash(42))).toBe(42);
  });

  it("names no line for anything else", () => {
    for (const hash of ["", "#", "#L", "#L0", "#L01", "#L-3", "#L1.5", "#L1e3", "#l12", "#L12-L20", "#line12", "L12", "#L12345678901"]) {
      expect(parseLineHash(hash), hash).toBeNull();
    }
  });
});

describe("goToLine", () => {
  afterEach(() => vi.unstubAllGlobals());

  function fakeWindow(href: string) {
    const target = new EventTarget();
    const history = { state: { router: "state" } as unknown, replaceState: vi.fn() };
    const win = Object.assign(target, { location: { href, hash: new URL(href).hash }, history });
    vi.stubGlobal("window", win);
    return win;
  }

  it("replaces the address (keeping the router's state) and tells the subscribers", () => {
    const win = fakeWindow("http://app/jobs/7?x=1#L3");
    const seen: number[] = [];
    const unsubscribe = subscribeLineHash((n) => seen.push(n));
    goToLine(120);
    expect(win.history.replaceState).toHaveBeenCalledWith({ router: "state" }, "", new URL("http://app/jobs/7?x=1#L120"));
    expect(seen).toEqual([120]);
    unsubscribe();
    goToLine(5);
    expect(seen).toEqual([120]);
  });

  it("passes on a #L hash the browser navigated to", () => {
    const win = fakeWindow("http://app/jobs/7");
    const seen: number[] = [];
    const unsubscribe = subscribeLineHash((n) => seen.push(n));
    win.location.hash = "#L77";
    win.dispatchEvent(new Event("hashchange"));
    win.location.hash = "#top";
    win.dispatchEvent(new Event("hashchange"));
    expect(seen).toEqual([77]);
    unsubscribe();
  });

  it("leaves a click with a modifier to the browser", () => {
    fakeWindow("http://app/jobs/7");
    const click = { button: 0, metaKey: false, ctrlKey: true, shiftKey: false, altKey: false, preventDefault: vi.fn() };
    onLineLinkClick(3)(click);
    expect(click.preventDefault).not.toHaveBeenCalled();
    onLineLinkClick(3)({ ...click, ctrlKey: false });
    expect(click.preventDefault).toHaveBeenCalled();
  });
});
