// The query of GET /api/jobs, parameter by parameter: what is accepted, what it means, and the
// 422 for everything else (server/api/job-list-query.ts). Against the database:
// test/integration/job-list.test.ts.
import { describe, expect, it } from "vitest";
import { parseInstant, parseJobListQuery } from "../../server/api/job-list-query";
import { decodeJobListCursor, encodeJobListCursor } from "../../server/data/job-list";
import { DomainError } from "../../server/errors";

const parse = (query: string) => parseJobListQuery(new Request(`http://playform.test/api/jobs?${query}`));

function problems(query: string): Record<string, string> {
  try {
    parse(query);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe("validation_failed");
    return (error as DomainError).fields ?? {};
  }
  throw new Error(`${query} was accepted`);
}

describe("parseInstant", () => {
  it("reads dates as whole UTC days and timestamps with or without an offset", () => {
    expect(parseInstant("2026-03-01", "start")?.toISOString()).toBe("2026-03-01T00:00:00.000Z");
    expect(parseInstant("2026-03-01", "end")?.toISOString()).toBe("2026-03-01T23:59:59.999Z");
    expect(parseInstant("2026-03-01T14:30", "start")?.toISOString()).toBe("2026-03-01T14:30:00.000Z");
    expect(parseInstant("2026-03-01T14:30:15Z", "end")?.toISOString()).toBe("2026-03-01T14:30:15.000Z");
    expect(parseInstant("2026-03-01T14:30:15.123456Z", "start")?.toISOString()).toBe("2026-03-01T14:30:15.123Z");
    expect(parseInstant("2026-03-01T14:30:15.5+02:00", "start")?.toISOString()).toBe("2026-03-01T12:30:15.500Z");
    expect(parseInstant("2026-03-01T00:30:00-0130", "start")?.toISOString()).toBe("2026-03-01T02:00:00.000Z");
    expect(parseInstant("2026-03-01 14:30:00z", "start")?.toISOString()).toBe("2026-03-01T14:30:00.000Z");
    // An unencoded + in a query string arrives as a space.
    expect(parseInstant("2026-03-01T14:30:00 02:00", "start")?.toISOString()).toBe("2026-03-01T12:30:00.000Z");
    expect(parseInstant("2024-02-29", "start")?.toISOString()).toBe("2024-02-29T00:00:00.000Z");
  });

  it("refuses what is not a date or names a day or time that does not exist", () => {
    for (const text of [
      "",
      "yesterday",
      "2026-3-1",
      "20260301",
      "2026-02-29",
      "2026-02-30",
      "2026-13-01",
      "2026-00-10",
      "0999-01-01",
      "2026-03-01T24:00",
      "2026-03-01T12:60",
      "2026-03-01T12:00:60",
      "2026-03-01T12:00:00+24:00",
      "2026-03-01T12",
      "1772372400000",
      "2026-03-01T12:00:00Zjunk",
    ]) {
      expect(parseInstant(text, "start"), text).toBeNull();
    }
  });
});

describe("parseJobListQuery", () => {
  it("defaults to the newest 50 of all jobs, and reads what old callers send", () => {
    expect(parse("")).toEqual({ filter: {}, sort: "-created", limit: 50, cursor: undefined });
    expect(parse("limit=50&form=hello-world")).toMatchObject({ filter: { form: "hello-world" }, limit: 50 });
    // Empty parameters count as left out; unknown ones are ignored.
    expect(parse("status=&form=&user=&runner=&from=&to=&sort=&cursor=&limit=&colour=blue")).toEqual(parse(""));
  });

  it("reads every filter", () => {
    const query = parse(
      "status=failed,aborted&status=failed&form=deploy&user=alice&runner=edge-1&from=2026-03-01&to=2026-03-31T12:00:00%2B02:00&sort=created&limit=200",
    );
    expect(query).toEqual({
      filter: {
        statuses: ["failed", "aborted"],
        form: "deploy",
        user: "alice",
        runner: "edge-1",
        from: new Date("2026-03-01T00:00:00.000Z"),
        to: new Date("2026-03-31T10:00:00.000Z"),
      },
      sort: "created",
      limit: 200,
      cursor: undefined,
    });
    expect(parse("status= failed , ,running").filter.statuses).toEqual(["failed", "running"]);
  });

  it("names each bad parameter and says what is wrong with it, all at once", () => {
    const fields = problems("status=failed,bogus,Done&limit=201&sort=name&from=2026-02-30&runner=a%00b&form=x&form=y");
    expect(fields.status).toBe(
      'unknown statuses "bogus", "Done"; valid: approval, queued, running, success, failed, aborted, abandoned, rejected',
    );
    expect(fields.limit).toMatch(/from 1 to 200/);
    expect(fields.sort).toMatch(/-created .*created/);
    expect(fields.from).toMatch(/ISO 8601 date .* not "2026-02-30"/);
    expect(fields.runner).toBe("must not contain control characters");
    expect(fields.form).toBe("is given 2 times; give it once");
    expect(Object.keys(fields).sort()).toEqual(["form", "from", "limit", "runner", "sort", "status"]);

    for (const limit of ["0", "-1", "1e2", "0x10", "050", "2.5", "99999999999999999999"]) {
      expect(problems(`limit=${limit}`), limit).toHaveProperty("limit");
    }
    expect(problems(`user=${"u".repeat(201)}`).user).toMatch(/at most 200/);
    expect(problems("from=2026-03-02&to=2026-03-01").to).toMatch(/is before from/);
    // The same day as both ends is one whole day, not a contradiction.
    expect(parse("from=2026-03-01&to=2026-03-01").filter).toEqual({
      from: new Date("2026-03-01T00:00:00.000Z"),
      to: new Date("2026-03-01T23:59:59.999Z"),
    });
  });

  it("takes back the cursors it hands out, for the sort they were made for, and nothing else", () => {
    const next = encodeJobListCursor({ sort: "-created", direction: "next", createdAt: new Date("2026-03-01T10:00:00.123Z"), id: 42 });
    expect(decodeJobListCursor(next)).toEqual({
      sort: "-created",
      direction: "next",
      createdAt: new Date("2026-03-01T10:00:00.123Z"),
      id: 42,
    });
    expect(parse(`cursor=${next}`).cursor).toEqual(decodeJobListCursor(next));
    expect(parse(`cursor=${next}&sort=-created&status=failed`).cursor?.id).toBe(42);
    expect(problems(`cursor=${next}&sort=created`).cursor).toMatch(/belongs to sort=-created, not sort=created/);

    const prev = encodeJobListCursor({ sort: "created", direction: "prev", createdAt: new Date(0), id: 1 });
    expect(parse(`cursor=${prev}&sort=created`).cursor?.direction).toBe("prev");

    const forged = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString("base64url");
    for (const cursor of [
      "nonsense",
      "!!!!",
      next.slice(0, -2),
      `${next}x`,
      "x".repeat(500),
      forged([2, "-created", "n", 0, 1]),
      forged([1, "name", "n", 0, 1]),
      forged([1, "-created", "x", 0, 1]),
      forged([1, "-created", "n", 0, 0]),
      forged([1, "-created", "n", 0, 2_147_483_648]),
      forged([1, "-created", "n", 1e20, 1]),
      forged([1, "-created", "n", "0", 1]),
      forged({ id: 1 }),
    ]) {
      expect(problems(`cursor=${encodeURIComponent(cursor)}`).cursor, cursor).toMatch(/is not a cursor of this list/);
    }
  });
});
