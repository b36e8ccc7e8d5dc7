/**
 * Throttling by client address behind a trusted proxy (PLAYFORM_TRUST_PROXY=1: the address is
 * the last X-Forwarded-For entry): a stranger's failed logins lock a user out for other
 * strangers but never for a client that logged in as that user before, and never past the
 * stranger's own address limit; joins are limited per address and pending runners overall.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
/** Got before the tests lock admin's name for strangers. */
let adminBearer: string;

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_TRUST_PROXY: "1" } });
  adminBearer = await adminToken(app);
});
afterAll(async () => {
  await app?.stop();
});

interface Attempt {
  status: number;
  retryAfter: number;
  knownCookie: string | null;
  json: any;
}

/** POST /api/auth/login from `address` (as the proxy reports it), with the cookies given. */
async function login(address: string, username: string, password: string, cookie?: string): Promise<Attempt> {
  // Raw, as the other requests here: what is tested is the forwarding headers and cookies.
  const response = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      // What a client might claim, then what the trusted proxy appended: the last entry counts.
      "x-forwarded-for": `10.9.9.9, ${address}`,
      ...(cookie ? { cookie } : {}),
    },
    body: JSON.stringify({ username, password }),
  });
  const known = response.headers.getSetCookie().find((c) => c.startsWith("playform_known="));
  return {
    status: response.status,
    retryAfter: Number(response.headers.get("retry-after")),
    knownCookie: known ? known.split(";")[0]! : null,
    json: await response.json(),
  };
}

async function tokenFrom(address: string, username: string, password: string): Promise<number> {
  const response = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`, "x-forwarded-for": address },
  });
  return response.status;
}

describe("login lock-out", () => {
  it("a stranger locks admin out for strangers, but admin still logs in from a known-good client", async () => {
    // Admin's usual browser (203.0.113.10) and script host (203.0.113.11) logged in before.
    const browser = await login("203.0.113.10", "admin", app.adminPassword);
    expect(browser.status).toBe(200);
    expect(browser.knownCookie).toMatch(/^playform_known=/);
    expect(await tokenFrom("203.0.113.11", "admin", app.adminPassword)).toBe(201);

    // A stranger guesses: 10 failures lock the name for every client not known to be admin's.
    for (let i = 0; i < 10; i++) expect((await login("198.51.100.66", "admin", `guess-${i}`)).status).toBe(401);
    const locked = await login("198.51.100.66", "admin", app.adminPassword);
    expect(locked.status).toBe(429);
    expect(locked.retryAfter).toBeGreaterThan(500);
    expect(locked.json.error.message).toMatch(/too many failed logins for "admin"/);
    expect((await login("198.51.100.77", "admin", app.adminPassword)).status).toBe(429);
    expect(await tokenFrom("198.51.100.77", "admin", app.adminPassword)).toBe(429);

    // The right password from a known-good client works: the browser's cookie from a new
    // address, the script host by its address, the browser's own address without the cookie.
    const back = await login("192.0.2.200", "admin", app.adminPassword, browser.knownCookie!);
    expect(back.status, JSON.stringify(back.json)).toBe(200);
    expect(await tokenFrom("203.0.113.11", "admin", app.adminPassword)).toBe(201);
    expect((await login("203.0.113.10", "admin", app.adminPassword)).status).toBe(200);
    // A wrong password from a known-good client is still wrong, and a forged cookie is no cookie.
    expect((await login("203.0.113.10", "admin", "wrong")).status).toBe(401);
    const forged = browser.knownCookie!.slice(0, -4) + (browser.knownCookie!.endsWith("AAAA") ? "BBBB" : "AAAA");
    expect((await login("192.0.2.201", "admin", app.adminPassword, forged)).status).toBe(429);

    // The stranger's own address runs out too, whatever name it tries next.
    let status = 0;
    for (let i = 0; i < 20 && status !== 429; i++) status = (await login("198.51.100.66", `someone-${i}`, "guess")).status;
    expect(status).toBe(429);
    // Other addresses and other names are not affected.
    expect((await login("198.51.100.88", "nobody", "guess")).status).toBe(401);
  });
});

describe("a known client's own login", () => {
  // The attack run: with its address locked, a user logged in with the right password and the
  // known-client cookie (which takes no address place); the success gave back a place it never
  // took, so each own login bought the address one more wrong guess. Seven rounds, seven guesses.
  it("gives no locked address or name another guess, round after round", async () => {
    const created = await fetch(`${app.url}/api/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminBearer}`, "content-type": "application/json" },
      body: JSON.stringify({ username: "own-login", password: "own-login-pw" }),
    });
    expect(created.status).toBe(201);
    const address = "198.18.60.1";
    const first = await login(address, "own-login", "own-login-pw");
    expect(first.status).toBe(200);
    const cookie = first.knownCookie!;
    // Someone at the same address (a shared NAT) guesses until the address is locked.
    let failures = 0;
    for (let i = 0; i < 30; i++) {
      const guess = await login(address, `victim-${i}`, "guess");
      if (guess.status === 429) break;
      expect(guess.status).toBe(401);
      failures++;
    }
    expect(failures).toBe(20);
    for (let round = 0; round < 7; round++) {
      expect((await login(address, "own-login", "own-login-pw", cookie)).status, `round ${round}: own login`).toBe(200);
      const guess = await login(address, `victim-round-${round}`, "guess");
      expect(guess.status, `round ${round}: the next guess from the address`).toBe(429);
    }

    // The same for a name: locked for strangers, its owner logs in from an address it used before.
    const usual = "198.18.63.1";
    expect((await login(usual, "own-login", "own-login-pw")).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await login(`198.18.61.${i + 1}`, "own-login", `guess-${i}`)).status).toBe(401);
    for (let round = 0; round < 7; round++) {
      expect((await login(usual, "own-login", "own-login-pw")).status, `round ${round}: own login by address`).toBe(200);
      const guess = await login(`198.18.62.${round + 1}`, "own-login", "guess");
      expect(guess.status, `round ${round}: the next guess for the name`).toBe(429);
    }
  });
});

describe("login throttle under concurrency", () => {
  // The attack run sent 100 wrong passwords at once for one name and got 44 answers of 401:
  // every attempt passed the check before any failure was counted. Each attempt now takes its
  // place in the counts before the password is checked, so no more than the limit is ever tried.
  const statuses = (answers: Attempt[]) => {
    const counts: Record<number, number> = {};
    for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  };

  it("answers 401 to at most 10 of 100 parallel wrong passwords for one name, from 100 addresses", async () => {
    const created = await fetch(`${app.url}/api/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminBearer}`, "content-type": "application/json" },
      body: JSON.stringify({ username: "parallel-target", password: "parallel-target-pw" }),
    });
    expect(created.status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => login(`198.18.${Math.floor(i / 200)}.${(i % 200) + 1}`, "parallel-target", `guess-${i}`)),
    );
    expect(statuses(answers)).toEqual({ 401: 10, 429: 90 });
    // Still locked for strangers, with the right password too.
    expect((await login("198.18.9.9", "parallel-target", "parallel-target-pw")).status).toBe(429);
  });

  it("answers 401 to at most 20 of 100 parallel wrong passwords from one address, whatever the names", async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => login("198.18.50.1", `nobody-${i}`, "guess")));
    expect(statuses(answers)).toEqual({ 401: 20, 429: 80 });
    const waits = answers.filter((answer) => answer.status === 429).map((answer) => answer.json.error.message as string);
    expect(waits.every((message) => /too many failed logins from your address/.test(message))).toBe(true);
  });
});

describe("join throttle", () => {
  it("limits joins per forwarded address, and pending runners overall", async () => {
    const join = (address: string, name: string) =>
      fetch(`${app.url}/api/runners/join`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": address },
        body: JSON.stringify({ v: 1, name, version: "x", capacity: 1 }),
      });
    for (let i = 0; i < 10; i++) expect((await join("198.51.100.1", `a-${i}`)).status).toBe(202);
    const limited = await join("198.51.100.1", "a-10");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another address has its own allowance, until 50 runners wait for an admin.
    let pending = 10;
    let answer: Response | null = null;
    for (let address = 2; pending < 60; address++) {
      for (let i = 0; i < 10; i++) {
        answer = await join(`198.51.100.${address}`, `b-${address}-${i}`);
        if (answer.status !== 202) break;
        pending++;
      }
      if (answer!.status !== 202) break;
    }
    expect(pending).toBe(50);
    expect(answer!.status).toBe(429);
    expect(Number(answer!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await answer!.json()) as any).error.message).toMatch(/waiting for an admin/);
  });
});
