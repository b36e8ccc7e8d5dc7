/**
 * job:dispatch's preview field (docs/rte.md, "Previews"): a preview is a v2 dispatch and only
 * a preview is, so an RTE built before previews refuses it instead of running the playbook.
 */
import { expect, it } from "vitest";
import { CONTRACT_VERSION, PREVIEW_CONTRACT_VERSION, SUPPORTED_CONTRACT_VERSIONS, jobDispatchSchema } from "@/server/protocol/rte-messages";

const dispatch = { jobId: 3, playbook: "site.yml", inventories: [], manifest: [], extravars: {}, options: {}, sealed: "x" };

it("reads a v1 run and a v2 preview", () => {
  expect(jobDispatchSchema.parse({ ...dispatch, v: CONTRACT_VERSION }).preview).toBeUndefined();
  expect(jobDispatchSchema.parse({ ...dispatch, v: PREVIEW_CONTRACT_VERSION, preview: true }).preview).toBe(true);
  expect(SUPPORTED_CONTRACT_VERSIONS).toEqual([1, 2]);
});

it("refuses a preview sent as v1 and a v2 dispatch that is not a preview", () => {
  expect(jobDispatchSchema.safeParse({ ...dispatch, v: CONTRACT_VERSION, preview: true }).success).toBe(false);
  expect(jobDispatchSchema.safeParse({ ...dispatch, v: PREVIEW_CONTRACT_VERSION }).success).toBe(false);
  expect(jobDispatchSchema.safeParse({ ...dispatch, v: PREVIEW_CONTRACT_VERSION, preview: false }).success).toBe(false);
});

it("a v1-only reader (an RTE before previews) cannot take a preview for a run", () => {
  // Such an RTE checks v against its own versions before anything else (server/rte/agent.ts claim).
  const v1Only: readonly number[] = [CONTRACT_VERSION];
  expect(v1Only.includes(PREVIEW_CONTRACT_VERSION)).toBe(false);
});
