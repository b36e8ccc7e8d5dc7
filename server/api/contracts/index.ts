/** Every endpoint's contract, in one list: what server/api/openapi.ts documents. */
import type { EndpointSpec } from "../contract";
import * as audit from "./audit";
import * as auth from "./auth";
import * as credentials from "./credentials";
import * as forms from "./forms";
import * as groups from "./groups";
import * as health from "./health";
import * as hosts from "./hosts";
import * as jobs from "./jobs";
import * as notifications from "./notifications";
import * as oidc from "./oidc";
import * as preview from "./preview";
import * as recap from "./recap";
import * as retention from "./retention";
import * as runners from "./runners";
import * as sources from "./sources";
import * as schedules from "./schedules";
import * as tokens from "./tokens";
import * as uploads from "./uploads";

function endpointsOf(module: Record<string, unknown>): EndpointSpec[] {
  return Object.values(module).filter(
    (value): value is EndpointSpec =>
      typeof value === "object" && value !== null && "method" in value && "path" in value && "responses" in value,
  );
}

export const ENDPOINTS: readonly EndpointSpec[] = [
  health,
  auth,
  oidc,
  forms,
  jobs,
  hosts,
  preview,
  runners,
  credentials,
  recap,
  audit,
  tokens,
  groups,
  uploads,
  notifications,
  retention,
  sources,
  schedules,
].flatMap(endpointsOf);
