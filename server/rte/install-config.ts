/**
 * Which configuration a requirements install reads: the runner's, never the form's.
 *
 * ansible-galaxy runs in the job folder and, like every ansible command, reads the first of
 * ANSIBLE_CONFIG, `./ansible.cfg`, `~/.ansible.cfg`, `/etc/ansible/ansible.cfg`. The form's
 * `ansible.cfg` would then choose the Galaxy server (`[galaxy] server = …`) its requirements.yml
 * installs from, which the cache key does not hold: a second form with the same requirements.yml
 * would get the first form's collection (attack 7). So each install command gets ANSIBLE_CONFIG
 * pinned to the runner's own file: the RTE's ANSIBLE_CONFIG, else (playbooks run as the RTE's
 * user) its `~/.ansible.cfg`, else `/etc/ansible/ansible.cfg`; when none exists, or the install
 * could not read it (ansible then silently falls back to `./ansible.cfg`), an empty file of the
 * RTE's in the job folder. Not /dev/null: ansible rejects it ("Unsupported configuration file
 * extension"). The playbook itself reads the form's ansible.cfg as Ansible does.
 *
 * pip reads PIP_CONFIG_FILE, then (unless that is os.devnull) the system's, the user's (HOME, the
 * job folder for a playbook user; XDG_CONFIG_HOME) and the venv's pip.conf: pinned to os.devnull
 * unless the runner set PIP_CONFIG_FILE, so no file of the job folder configures pip.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { hiddenFolders, PRIVATE_TMP_MOUNTS, reachableBy, type PrivateTmp } from "./sandbox";

/** The empty configuration of the RTE's, in the job folder (hidden files are never a form's). */
export const EMPTY_ANSIBLE_CONFIG = ".playform_install_ansible.cfg";

/** The runner's own ansible configuration file, as ansible would find it outside the job folder (null: none). */
export function runnerAnsibleConfig(
  parent: Readonly<Record<string, string | undefined>>,
  ownUser: boolean,
  home: string = os.homedir(),
): string | null {
  const fromEnv = parent.ANSIBLE_CONFIG;
  if (fromEnv !== undefined && fromEnv !== "") {
    const resolved = path.resolve(fromEnv.replace(/^~(?=\/|$)/, home));
    // As ansible: a folder stands for its ansible.cfg.
    return isDirectory(resolved) ? path.join(resolved, "ansible.cfg") : resolved;
  }
  const candidates = [...(ownUser ? [path.join(home, ".ansible.cfg")] : []), "/etc/ansible/ansible.cfg"];
  return candidates.find((file) => isFile(file)) ?? null;
}

/**
 * Whether `who` (null: the RTE's own user) reads `file` by its mode bits, and the sandbox leaves
 * it in sight (not under the private /tmp or a hidden runner folder).
 */
export function installCanRead(file: string, who: { uid: number; gid: number } | null, privateTmp: PrivateTmp | null): boolean {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return false;
  }
  if (!stat.isFile()) return false;
  if (privateTmp !== null) {
    const over = [...(privateTmp.runnerTmp ? [] : PRIVATE_TMP_MOUNTS), ...(privateTmp.hidden ?? [])];
    if (hiddenFolders([path.dirname(file)], over).length > 0) return false;
  }
  if (who === null || who.uid === 0) {
    try {
      fs.accessSync(file, fs.constants.R_OK);
      return true;
    } catch {
      return false;
    }
  }
  const bits = stat.uid === who.uid ? stat.mode >> 6 : stat.gid === who.gid ? stat.mode >> 3 : stat.mode;
  return (bits & 0o4) !== 0 && reachableBy(path.dirname(file), who);
}

/**
 * ANSIBLE_CONFIG and PIP_CONFIG_FILE for the install commands of the job in `jobDir` (see the
 * header), and `note`: why the runner's ansible.cfg is not used, when it is not.
 */
export function installConfigEnv(
  jobDir: string,
  parent: Readonly<Record<string, string | undefined>>,
  who: { uid: number; gid: number } | null,
  privateTmp: PrivateTmp | null,
): { env: { ANSIBLE_CONFIG: string; PIP_CONFIG_FILE: string }; note: string | null } {
  const runner = runnerAnsibleConfig(parent, who === null);
  const pip = parent.PIP_CONFIG_FILE !== undefined && parent.PIP_CONFIG_FILE !== "" ? parent.PIP_CONFIG_FILE : os.devNull;
  if (runner !== null && installCanRead(runner, who, privateTmp))
    return { env: { ANSIBLE_CONFIG: runner, PIP_CONFIG_FILE: pip }, note: null };
  const empty = path.join(jobDir, EMPTY_ANSIBLE_CONFIG);
  fs.rmSync(empty, { force: true });
  fs.writeFileSync(empty, "", { mode: 0o444, flag: "wx" });
  fs.chmodSync(empty, 0o444);
  const note =
    runner === null
      ? null
      : `requirements: the runner's ${runner} cannot be read by the install (permissions, or hidden by the sandbox): installing with an empty ansible configuration`;
  return { env: { ANSIBLE_CONFIG: empty, PIP_CONFIG_FILE: pip }, note };
}

function isFile(target: string): boolean {
  try {
    return fs.statSync(target).isFile();
  } catch {
    return false;
  }
}

function isDirectory(target: string): boolean {
  try {
    return fs.statSync(target).isDirectory();
  } catch {
    return false;
  }
}
