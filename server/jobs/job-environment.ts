/**
 * Which Ansible environment a job runs in, and which runner instances may run it (issue 21):
 * a form names one with `environment:` (form.yaml), else its jobs run in `default`. Pure rules,
 * used by the dispatcher (this node's links) and its wait reasons (every node's instances, from
 * the database).
 */
import { z } from "zod";
import { DEFAULT_ENVIRONMENT, RteFeatures, type EnvironmentReport } from "../protocol/rte-messages";
import type { JobEnvironment } from "../protocol/ui-messages";

/**
 * The environment a job runs in: the one its form definition names, as frozen in its plan at
 * launch (server/jobs/plan.ts; the form's current one for a job launched before plans), or `default`.
 */
export function jobEnvironmentName(job: { plan: unknown; form: { definition: unknown } }): string {
  const plan = z.object({ definition: z.unknown() }).safeParse(job.plan);
  const definition = plan.success ? plan.data.definition : job.form.definition;
  const parsed = z.object({ environment: z.string().optional() }).safeParse(definition);
  return (parsed.success ? parsed.data.environment : undefined) ?? DEFAULT_ENVIRONMENT;
}

/** What the dispatcher knows of a connected instance's environments (RunnerLink). */
export interface LinkEnvironments {
  /** What the RTE announced (RteFeatures). */
  features: readonly string[];
  /**
   * Its report: from `rte:environments`, or from the handshake of the build before that; null
   * while an RTE that reports them has not yet (its probe still runs), or from an RTE too old to.
   */
  environments: readonly EnvironmentReport[] | null;
}

/**
 * Whether an instance may be sent a job of `name`. One that announces RteFeatures.environments
 * offers what it reported without `error`, and nothing before its report arrives. Any other
 * runs every job with its one ansible: it offers only `default`, whatever it reported (the
 * build before `rte:environments` reported its environments but could not run them).
 */
export function offersEnvironment(link: LinkEnvironments, name: string): boolean {
  if (!link.features.includes(RteFeatures.environments)) return name === DEFAULT_ENVIRONMENT;
  return link.environments?.some((e) => e.name === name && e.error === null) ?? false;
}

/** What a job dispatched to `link` in `name` records: the versions that instance reported (null when unknown). */
export function jobEnvironmentOn(link: LinkEnvironments, name: string): JobEnvironment {
  const report = link.environments?.find((e) => e.name === name);
  return { name, ansibleCore: report?.ansibleCore ?? null, python: report?.python ?? null };
}

/**
 * Why a job of `name` waits although instances of its runner are connected, from their stored
 * reports (RunnerInstance.environments; null: an older RTE, which offers `default`), or null
 * when one of them offers it (the job waits for another reason: a full or busy instance).
 */
export function environmentWaitReason(
  runnerName: string,
  name: string,
  connected: readonly { environments: readonly EnvironmentReport[] | null }[],
): string | null {
  const offered = new Set<string>();
  for (const instance of connected) {
    const names =
      instance.environments === null ? [DEFAULT_ENVIRONMENT] : instance.environments.filter((e) => e.error === null).map((e) => e.name);
    for (const offer of names) offered.add(offer);
  }
  if (offered.has(name)) return null;
  const offers = offered.size > 0 ? `it offers ${[...offered].sort().join(", ")}` : "it has reported no working environment yet";
  return `no connected runner offers the environment ${name} (runner ${runnerName}: ${offers})`;
}
