import { NextResponse } from "next/server";
import { DomainError } from "@/server/errors";
import { requireAdmin, route } from "@/server/api/route";
import {
  RunnerConflictError,
  approveRunner,
  findRunner,
  rejectRunner,
  revokeRunner,
  rotateRunnerToken,
  setDefaultRunner,
} from "@/server/data/runners";
import { playformRuntime } from "@/server/runtime";

const ACTIONS = ["approve", "reject", "revoke", "rotate", "default"] as const;
type Action = (typeof ACTIONS)[number];

/** POST /api/runners/ID/{approve|reject|revoke|rotate|default} (admins). */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string; action: string }> }) => {
  await requireAdmin(request);
  const { id, action } = await params;
  if (!(ACTIONS as readonly string[]).includes(action)) {
    throw new DomainError("not_found", `unknown runner action "${action}" (expected one of ${ACTIONS.join(", ")})`);
  }
  if (!(await findRunner(id))) throw new DomainError("not_found", `no runner ${id}`);
  try {
    return NextResponse.json(await perform(id, action as Action));
  } catch (error) {
    if (error instanceof RunnerConflictError) throw new DomainError("conflict", error.message);
    throw error;
  }
});

async function perform(id: string, action: Action): Promise<Record<string, unknown>> {
  const runtime = playformRuntime();
  switch (action) {
    case "approve":
      await approveRunner(id);
      return { status: "approved" };
    case "reject":
      await rejectRunner(id);
      return { status: "rejected" };
    case "revoke":
      await revokeRunner(id);
      runtime.disconnectRunner(id, "runner revoked by an admin");
      return { status: "revoked" };
    case "rotate": {
      const token = await rotateRunnerToken(id);
      runtime.disconnectRunner(id, "token rotated by an admin: restart the runner with the new token");
      // Shown once; only its hash is kept.
      return { status: "approved", token };
    }
    case "default":
      await setDefaultRunner(id);
      return { status: "approved", isDefault: true };
  }
}
