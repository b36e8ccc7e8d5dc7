/**
 * The start probe of the runner-proc mode (server/rte/sandbox.ts, detectSandbox with
 * RTE_SANDBOX_PROC=runner), on this machine's bwrap and kernel: with the runner's /proc, a
 * playbook of another user (bwrap makes it a user namespace) cannot reach this process's
 * /proc/PID/root, and the mode is taken; a playbook run as root (RTE_PLAYBOOK_USER empty under
 * a root RTE: bwrap keeps its capabilities, no user namespace) can, and would see the runner's
 * files, hidden folders and all, through it: no sandbox, said why. Needs root, as CI runs.
 */
import { expect, it } from "vitest";
import { detectSandbox } from "../../server/rte/sandbox";

const nobody = { name: "nobody", uid: 65534, primaryGid: 65534, jobGroups: false };

it("takes the runner's /proc for another user, and refuses it for root playbooks, which reach the RTE's /proc/PID/root", async () => {
  if (process.getuid?.() !== 0) throw new Error("this test runs the probe as root and as nobody: run it as root (as CI does)");
  const said: string[] = [];
  expect(await detectSandbox("bwrap", nobody, (line) => said.push(line), false, "runner")).toBe("runner-proc");
  expect(said.join("\n")).toMatch(
    /^WARNING: playbooks run in a sandbox with the runner's \/proc \(bubblewrap, RTE_SANDBOX_PROC=runner\): .*sees every process of the runner and their command lines/,
  );
  said.length = 0;
  expect(await detectSandbox("bwrap", null, (line) => said.push(line), false, "runner")).toBe(false);
  expect(said.join("\n")).toMatch(
    /^WARNING: playbooks run without a sandbox \(.*reaches the runner's files through the RTE's \/proc\/PID\/root/,
  );
  // The whole sandbox, where this kernel mounts a new /proc: the runner's is not even tried.
  said.length = 0;
  expect(await detectSandbox("bwrap", nobody, (line) => said.push(line))).toBe(true);
  expect(said.join("\n")).toMatch(/^playbooks run in a pid namespace of their own/);
}, 60_000);
