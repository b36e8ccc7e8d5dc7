/**
 * The stored side of run kinds (run-kind.ts): each run's key, set at launch; the key of a form's
 * full runs (its own settings, nothing chosen at launch), which its idempotence report and trend
 * cover; and the keys of runs stored before keys existed, found once at start.
 */
import { findFormRecord } from "../data/forms";
import { getRunKeyFacts, listRunsWithoutRunKey, setRunKeys, type RunKeyFacts } from "../data/jobs";
import { formDefinitionSchema, type FormDefinition } from "../forms/definition";
import type { ManifestEntry } from "../protocol/rte-messages";
import { Lru } from "./job-cache";
import { planOf, resolveJobOptions } from "./plan";
import { runKindKey, runKindOf } from "./run-kind";

const BACKFILL_BATCH = 500;
/** A run's key never changes: kept per job id for progress, asked for at every look. */
const keys = new Lru<number, string>(4096);

/** A stored run's key, computed from its plan (or its form now, for runs older than plans). */
function keyOf(facts: RunKeyFacts): string {
  const { plan } = planOf({
    plan: facts.plan,
    runOptions: facts.runOptions,
    manifest: (facts.manifest ?? []) as ManifestEntry[],
    form: facts.form,
    // The runner is not part of a run's kind.
    runnerName: "",
  });
  return runKindKey(runKindOf(plan.playbook, plan.options));
}

/** The key of job `id`'s kind; null for a preview or no such job. */
export async function runKeyOfJob(id: number): Promise<string | null> {
  const known = keys.get(id);
  if (known !== undefined) return known;
  const facts = await getRunKeyFacts(id);
  if (!facts) return null;
  let runKey = facts.runKey;
  if (runKey === null) {
    runKey = keyOf(facts);
    await setRunKeys([{ id, runKey }]);
  }
  keys.set(id, runKey);
  return runKey;
}

/**
 * The key of a form's full runs: its playbook with its own tags, skip tags, limit and check
 * setting, nothing chosen at launch. Null when there is no such form.
 */
export async function fullRunKeyOfForm(formName: string): Promise<string | null> {
  const form = await findFormRecord(formName);
  if (!form) return null;
  const definition = formDefinitionSchema.safeParse(form.definition);
  return definition.success ? fullRunKeyOfDefinition(definition.data) : null;
}

/** The key of the full runs of a form with this definition (its own settings, nothing chosen at launch). */
export function fullRunKeyOfDefinition(definition: FormDefinition): string {
  return runKindKey(runKindOf(definition.playbook, resolveJobOptions(definition, {})));
}

/** Sets the key of every run stored without one (before keys existed); returns how many. */
export async function backfillRunKeys(): Promise<number> {
  let after = 0;
  let done = 0;
  for (;;) {
    const batch = await listRunsWithoutRunKey(after, BACKFILL_BATCH);
    if (batch.length === 0) return done;
    const keys: { id: number; runKey: string }[] = [];
    for (const facts of batch) {
      try {
        keys.push({ id: facts.id, runKey: keyOf(facts) });
      } catch {
        // A form definition that no longer parses: its runs stay unkeyed (and out of comparisons).
      }
    }
    await setRunKeys(keys);
    done += keys.length;
    after = batch.at(-1)!.id;
  }
}
