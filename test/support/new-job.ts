/**
 * The input of a new job for unit tests that create jobs through the real lifecycle or data
 * layer (server/data/jobs.ts `NewJob`): form "hello" of user "user-1", no values, no runner.
 * The tests create that form and user rows themselves.
 */
import type { NewJob } from "../../server/data/jobs";

export function newJobInput(over: Partial<NewJob> = {}): NewJob {
  return {
    formId: "form-1",
    formName: "hello",
    userId: "user-1",
    runnerId: null,
    values: {},
    extravars: {},
    manifest: [],
    runOptions: {},
    ...over,
  };
}
