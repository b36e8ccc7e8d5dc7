import { describe, expect, it } from "vitest";
import { BWRAP_ARGS, SECRETS_FD, STATUS_FD, wrapPlaybook } from "../../server/rte/sandbox";

const playbook = { file: "ansible-playbook", args: ["-e", "@/jobs/1/.hidden", "site.yml"] };

describe("wrapPlaybook", () => {
  it("without bubblewrap: playbook-init.py hands the secrets over, then becomes ansible-playbook", () => {
    expect(wrapPlaybook(playbook, "/opt/init.py", "/jobs/1/.hidden", false)).toEqual({
      file: "python3",
      args: [
        "/opt/init.py",
        "--secrets-fd",
        String(SECRETS_FD),
        "--secrets-fifo",
        "/jobs/1/.hidden",
        "--",
        "ansible-playbook",
        ...playbook.args,
      ],
    });
  });

  it("with bubblewrap: bwrap ignores SIGTERM, dies with the RTE, and playbook-init.py is PID 1 reporting on fd 4", () => {
    const { file, args } = wrapPlaybook(playbook, "/opt/init.py", "/jobs/1/.hidden", true);
    expect(file).toBe("env");
    expect(args.slice(0, 2)).toEqual(["--ignore-signal=TERM", "bwrap"]);
    expect(BWRAP_ARGS).toEqual(expect.arrayContaining(["--unshare-pid", "--die-with-parent", "--as-pid-1"]));
    const inner = args.indexOf("--");
    expect(args.slice(2, inner)).toEqual(BWRAP_ARGS);
    expect(args.slice(inner + 1)).toEqual([
      "python3",
      "/opt/init.py",
      "--init",
      String(STATUS_FD),
      "--secrets-fd",
      String(SECRETS_FD),
      "--secrets-fifo",
      "/jobs/1/.hidden",
      "--",
      "ansible-playbook",
      ...playbook.args,
    ]);
  });

  it("an inventory listing: the same bwrap and PID 1, without secrets (no FIFO)", () => {
    const listing = { file: "ansible-inventory", args: ["-i", "/jobs/inventory-1/hosts.yml", "--list"] };
    const { file, args } = wrapPlaybook(listing, "/opt/init.py", null, true);
    expect(file).toBe("env");
    const inner = args.indexOf("--");
    expect(args.slice(2, inner)).toEqual(BWRAP_ARGS);
    expect(args.slice(inner + 1)).toEqual([
      "python3",
      "/opt/init.py",
      "--init",
      String(STATUS_FD),
      "--",
      "ansible-inventory",
      ...listing.args,
    ]);
    expect(wrapPlaybook(listing, "/opt/init.py", null, false)).toEqual({
      file: "python3",
      args: ["/opt/init.py", "--", "ansible-inventory", ...listing.args],
    });
  });
});
