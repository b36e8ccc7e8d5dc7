/**
 * The Ansible environments a runner offers (RTE_ENVIRONMENTS): each a name, the folder holding
 * its ansible-playbook and ansible-galaxy (a Python virtual environment's or prefix's bin/),
 * extra collection and role paths, and a description. Read once at start: a bad file stops the
 * RTE with a message naming the file, the entry and the field, instead of a job failing later.
 *
 * Only the file's form is checked here. Whether an environment works (its folder exists, holds
 * ansible, answers) is what the probe finds out (environment-probe.ts): a broken environment is
 * reported to the app with its error, not refused, so the Runners page shows what is wrong (and
 * the app sends it no job). A job runs in the environment its dispatch names (job-run.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

import { DEFAULT_ENVIRONMENT, ENVIRONMENT_NAME } from "../protocol/rte-messages";

// What the app shows and matches forms against (form.yaml `environment:`): short, stable, safe
// in a URL and a log line. Defined with the contract, which both sides validate against.
export { DEFAULT_ENVIRONMENT, ENVIRONMENT_NAME };
/** More would only slow the probe at start (two ansible commands each) and crowd the Runners page. */
const MAX_ENVIRONMENTS = 20;

export interface RteEnvironment {
  name: string;
  /**
   * The absolute folder of its ansible-playbook and ansible-galaxy; null: the ones on PATH (the
   * default environment when ANSIBLE_PLAYBOOK names no folder).
   */
  bin: string | null;
  /** Absolute folders searched for collections and roles besides ansible's own (in this order). */
  collectionsPaths: string[];
  rolesPaths: string[];
  description: string;
  /**
   * Only the built-in default environment's (no RTE_ENVIRONMENTS): ANSIBLE_PLAYBOOK, which its
   * jobs run exactly as configured, as they did before environments.
   */
  ansiblePlaybook?: string;
}

const pathList = z.array(z.string().min(1, "must not be empty"), { error: "must be a list of folders" }).max(20);

const environmentSchema = z.strictObject(
  {
    name: z
      .string({ error: "is required (a short name: lowercase letters, digits, . _ -)" })
      .regex(ENVIRONMENT_NAME, "must be 1 to 32 of a-z 0-9 . _ - (starting with a letter or digit)"),
    bin: z.string({ error: "is required (the folder holding ansible-playbook, e.g. /opt/ansible-9/bin)" }).min(1, "must not be empty"),
    collectionsPaths: pathList.default([]),
    rolesPaths: pathList.default([]),
    description: z.string({ error: "must be text" }).max(500).default(""),
  },
  { error: (issue) => (issue.code === "unrecognized_keys" ? undefined : "must be a mapping (name:, bin:, …)") },
);

const fileSchema = z.strictObject(
  {
    environments: z
      .array(environmentSchema, {
        error: (issue) => `${issue.input === undefined ? "is required:" : "must be"} a list of environments (each with name: and bin:)`,
      })
      .min(1, "must list at least one environment")
      .max(MAX_ENVIRONMENTS, `lists more than ${MAX_ENVIRONMENTS} environments`),
  },
  { error: (issue) => (issue.code === "unrecognized_keys" ? undefined : "must be a mapping with an environments: list") },
);

/** RTE_ENVIRONMENTS cannot be used: the message names the file, the entry and the field. */
export class EnvironmentsFileError extends Error {}

/** The one environment of a runner without RTE_ENVIRONMENTS: the ansible-playbook it has always run. */
export function defaultEnvironment(ansiblePlaybook: string): RteEnvironment {
  return {
    name: DEFAULT_ENVIRONMENT,
    // ANSIBLE_PLAYBOOK as a path names its installation (as for ansible-inventory, inventory-list.ts).
    bin: ansiblePlaybook.includes("/") ? path.dirname(path.resolve(ansiblePlaybook)) : null,
    collectionsPaths: [],
    rolesPaths: [],
    description: ansiblePlaybook.includes("/") ? `the ansible of ANSIBLE_PLAYBOOK (${ansiblePlaybook})` : "the ansible on PATH",
    ansiblePlaybook,
  };
}

/** The environments RTE_ENVIRONMENTS describes (`file`), or the default one when it is unset. */
export function loadEnvironments(file: string | undefined, ansiblePlaybook: string): RteEnvironment[] {
  if (file === undefined || file === "") return [defaultEnvironment(ansiblePlaybook)];
  const where = `RTE_ENVIRONMENTS=${file}`;
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new EnvironmentsFileError(`${where}: cannot be read (${code === "ENOENT" ? "no such file" : (code ?? String(error))})`);
  }
  return parseEnvironments(text, file);
}

/** The environments of a file's text; relative folders are resolved against the file's folder. */
export function parseEnvironments(text: string, file: string): RteEnvironment[] {
  const where = `RTE_ENVIRONMENTS=${file}`;
  let data: unknown;
  try {
    data = parseYaml(text, { prettyErrors: false });
  } catch (error) {
    throw new EnvironmentsFileError(`${where}: not valid YAML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new EnvironmentsFileError(`${where}: ${describeIssue(issue, data)}`);
  }
  const base = path.dirname(path.resolve(file));
  const environments = parsed.data.environments.map((entry) => ({
    name: entry.name,
    bin: path.resolve(base, entry.bin),
    collectionsPaths: entry.collectionsPaths.map((p) => path.resolve(base, p)),
    rolesPaths: entry.rolesPaths.map((p) => path.resolve(base, p)),
    description: entry.description,
  }));
  const seen = new Map<string, number>();
  environments.forEach((environment, index) => {
    const first = seen.get(environment.name);
    if (first !== undefined) {
      throw new EnvironmentsFileError(
        `${where}: environment ${index + 1} ("${environment.name}"): name: "${environment.name}" is already the name of environment ${first + 1}`,
      );
    }
    seen.set(environment.name, index);
  });
  return environments;
}

/** `environment 2 ("py311"): bin: must not be empty`, or the top-level problem. */
function describeIssue(issue: z.core.$ZodIssue, data: unknown): string {
  const [top, index, ...field] = issue.path;
  const message =
    issue.code === "unrecognized_keys" ? `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}` : issue.message;
  if (top !== "environments" || typeof index !== "number") return top === undefined ? message : `${String(top)}: ${message}`;
  const entries = (data as { environments: unknown[] }).environments;
  const name = (entries[index] as { name?: unknown } | null)?.name;
  const entry = `environment ${index + 1}${typeof name === "string" && name !== "" ? ` ("${name}")` : ""}`;
  return field.length === 0 ? `${entry}: ${message}` : `${entry}: ${field.join(".")}: ${message}`;
}
