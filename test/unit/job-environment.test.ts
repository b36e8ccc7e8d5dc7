import { describe, expect, it } from "vitest";
import {
  environmentWaitReason,
  jobEnvironmentName,
  jobEnvironmentOn,
  offersEnvironment,
  type LinkEnvironments,
} from "../../server/jobs/job-environment";
import { RteFeatures, type EnvironmentReport } from "../../server/protocol/rte-messages";

const report = (name: string, error: string | null = null): EnvironmentReport => ({
  name,
  description: "",
  ansibleCore: error === null ? "2.19.4" : null,
  python: error === null ? "3.13.5" : null,
  collections: [],
  error,
});
/** A link of an RTE that reports its environments in `rte:environments` (null: not yet). */
const current = (environments: EnvironmentReport[] | null): LinkEnvironments => ({
  features: [RteFeatures.heartbeatInterval, RteFeatures.environments],
  environments,
});

describe("jobEnvironmentName", () => {
  it("reads the environment of the definition frozen in the plan, else of the form, else default", () => {
    const form = { definition: { name: "f", environment: "now" } };
    expect(jobEnvironmentName({ plan: { v: 1, definition: { name: "f", environment: "k8s-2.18" } }, form })).toBe("k8s-2.18");
    // The plan's definition wins, even when the form names one since.
    expect(jobEnvironmentName({ plan: { v: 1, definition: { name: "f" } }, form })).toBe("default");
    // A job launched before plans: the form as it is.
    expect(jobEnvironmentName({ plan: null, form })).toBe("now");
    expect(jobEnvironmentName({ plan: null, form: { definition: { name: "f" } } })).toBe("default");
  });
});

describe("offersEnvironment: which instance may be sent a job", () => {
  it("an RTE that reports its environments offers those without an error", () => {
    const link = current([report("default"), report("wrapped"), report("broken", "no ansible-playbook in /opt/x/bin")]);
    expect(offersEnvironment(link, "default")).toBe(true);
    expect(offersEnvironment(link, "wrapped")).toBe(true);
    expect(offersEnvironment(link, "broken")).toBe(false);
    expect(offersEnvironment(link, "missing")).toBe(false);
    // Without `default` in its file, it does not run the jobs of forms that name none.
    expect(offersEnvironment(current([report("wrapped")]), "default")).toBe(false);
  });

  it("offers nothing until its report arrives: it is not known yet what it can run", () => {
    expect(offersEnvironment(current(null), "default")).toBe(false);
    expect(offersEnvironment(current(null), "wrapped")).toBe(false);
  });

  it("an older RTE offers only default, also one that reported others in its handshake (it could not run them)", () => {
    const older: LinkEnvironments = { features: [RteFeatures.heartbeatInterval], environments: null };
    expect(offersEnvironment(older, "default")).toBe(true);
    expect(offersEnvironment(older, "wrapped")).toBe(false);
    const previousBuild: LinkEnvironments = {
      features: [RteFeatures.heartbeatInterval],
      environments: [report("default"), report("wrapped")],
    };
    expect(offersEnvironment(previousBuild, "default")).toBe(true);
    expect(offersEnvironment(previousBuild, "wrapped")).toBe(false);
  });
});

describe("jobEnvironmentOn: what a dispatched job records", () => {
  it("the name with the versions the instance reported for it, null where none were", () => {
    expect(jobEnvironmentOn(current([report("default"), report("wrapped")]), "wrapped")).toEqual({
      name: "wrapped",
      ansibleCore: "2.19.4",
      python: "3.13.5",
    });
    expect(jobEnvironmentOn({ features: [], environments: null }, "default")).toEqual({ name: "default", ansibleCore: null, python: null });
  });
});

describe("environmentWaitReason: why a queued job waits although instances are connected", () => {
  it("names the environment no connected instance offers, and what they offer", () => {
    expect(environmentWaitReason("r1", "k8s-2.18", [{ environments: [report("default"), report("py311")] }, { environments: null }])).toBe(
      "no connected runner offers the environment k8s-2.18 (runner r1: it offers default, py311)",
    );
    expect(
      environmentWaitReason("r1", "k8s-2.18", [{ environments: [report("k8s-2.18", "the folder /opt/k8s/bin does not exist")] }]),
    ).toBe("no connected runner offers the environment k8s-2.18 (runner r1: it has reported no working environment yet)");
  });

  it("is null when one offers it (the job waits for another reason), an older RTE counting as default", () => {
    expect(environmentWaitReason("r1", "default", [{ environments: null }])).toBeNull();
    expect(environmentWaitReason("r1", "py311", [{ environments: [] }, { environments: [report("py311")] }])).toBeNull();
  });
});
