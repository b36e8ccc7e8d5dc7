/**
 * A small client for Playform's REST API in tests: JSON in and out, a bearer token, and the
 * job helpers every integration test needs (launch, wait for the end, read the output).
 * Every answer is checked against the OpenAPI document (server/api/openapi.ts): a route,
 * status or body the document does not describe fails the call, naming route and status.
 */
import { expect } from "vitest";
import { openApiMismatch } from "./openapi-check";
import type { RunningPlayform } from "./playform";

export const FINAL_STATUSES = ["success", "failed", "aborted", "abandoned", "rejected"];

export interface ApiAnswer {
  status: number;
  headers: Headers;
  // Tests read answers field by field; the shapes are asserted, not assumed.
  json: any;
}

export interface ApiClient {
  /** `headers` are sent as given, after the bearer token (so `authorization` replaces it, e.g. Basic for /api/auth/token). */
  call(
    method: string,
    url: string,
    init?: { json?: unknown; body?: BodyInit; type?: string; auth?: boolean; headers?: Record<string, string> },
  ): Promise<ApiAnswer>;
  get(url: string): Promise<any>;
  launch(form: string, values?: Record<string, unknown>): Promise<number>;
  waitForEnd(id: number, timeoutMs?: number): Promise<any>;
  waitForStatus(id: number, status: string, timeoutMs?: number): Promise<any>;
  output(id: number): Promise<string>;
}

/**
 * `checkDocument: false` is for the page benchmark's baseline only: an older build answers in
 * the shapes of its own day, which this checkout's document does not describe.
 */
export function apiClient(app: RunningPlayform, token: string, options: { checkDocument?: boolean } = {}): ApiClient {
  const checkDocument = options.checkDocument ?? true;
  const call: ApiClient["call"] = async (method, url, init = {}) => {
    const headers: Record<string, string> = {};
    if (init.auth !== false) headers.authorization = `Bearer ${token}`;
    let body = init.body;
    if (init.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(init.json);
    } else if (init.type) headers["content-type"] = init.type;
    Object.assign(headers, init.headers);
    const response = await fetch(`${app.url}${url}`, { method, headers, body });
    const text = await response.text();
    // Every answer is checked against the OpenAPI document (test/support/openapi-check.ts).
    const mismatch =
      checkDocument &&
      openApiMismatch(method, response.url || `${app.url}${url}`, response.status, response.headers.get("content-type"), text);
    if (mismatch) throw new Error(`OpenAPI: ${mismatch}`);
    return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : null };
  };

  const get = async (url: string) => {
    const answer = await call("GET", url);
    expect(answer.status, `GET ${url}: ${JSON.stringify(answer.json)}`).toBe(200);
    return answer.json;
  };

  const pollJob = async (id: number, done: (job: any) => boolean, what: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { job } = await get(`/api/jobs/${id}`);
      if (done(job)) return job;
      if (Date.now() > deadline) throw new Error(`job ${id} is still ${job.status}, waited for ${what}:\n${app.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  return {
    call,
    get,
    async launch(form, values = {}) {
      const answer = await call("POST", "/api/jobs", { json: { form, values } });
      expect(answer.status, JSON.stringify(answer.json)).toBe(201);
      return answer.json.id as number;
    },
    // Hang detectors, not speed checks: with three files at once on a busy 2-core machine a
    // job of a few seconds took over 90 s to end (speed targets live in test/bench).
    waitForEnd: (id, timeoutMs = 150_000) => pollJob(id, (job) => FINAL_STATUSES.includes(job.status), "its end", timeoutMs),
    waitForStatus: (id, status, timeoutMs = 60_000) => pollJob(id, (job) => job.status === status, status, timeoutMs),
    /** The whole output in order, paging through the API (every page checked for order). */
    async output(id) {
      let after = 0;
      let text = "";
      for (;;) {
        const page = await get(`/api/jobs/${id}/output?after=${after}&limit=500`);
        for (const chunk of page.chunks as { seq: number; text: string }[]) {
          expect(chunk.seq).toBeGreaterThan(after);
          after = chunk.seq;
          text += chunk.text;
        }
        if (page.chunks.length < 500) return text;
      }
    },
  };
}
