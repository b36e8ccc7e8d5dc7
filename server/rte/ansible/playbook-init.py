#!/usr/bin/env python3
"""How the RTE starts ansible-playbook (server/rte/job-run.ts, server/rte/sandbox.ts).

    playbook-init.py [--init STATUS_FD] [--secrets-fd FD --secrets-fifo PATH] -- ansible-playbook ARGS...

(An inventory listing, server/rte/inventory-list.ts, starts ansible-inventory the same way,
without secrets: no FIFO then.)

Secrets: the RTE writes the job's hidden extravars (credentials) into inherited fd FD (a Node
socketpair) and closes its end. This script reads them and hands them to ansible-playbook
through a FIFO at PATH, which ARGS name as `-e @PATH`: ansible opens and reads that "file"
once (DataLoader._get_file_contents, then its file cache). A forked writer opens the FIFO
(which blocks until ansible opens it to read), unlinks it at once, writes and closes. So the
secrets are never in a file on disk, not even while ansible starts, and nothing of them is
left behind when the RTE is killed. (Not /dev/fd/N: ansible resolves that link to
"pipe:[...]", which it cannot open.) The FIFO is made by the playbook's own user, 0600.

--init STATUS_FD: this process is PID 1 of the playbook's pid namespace (bubblewrap
--as-pid-1 --die-with-parent, see sandbox.ts). It runs ansible-playbook as its child, writes
ansible-playbook's end to STATUS_FD ("exit N" or "signal N") when it exits, reaps everything
else in the namespace (orphans are re-parented to PID 1), and exits once nothing is left.
When PID 1 of a pid namespace dies, the kernel kills every process in it: whatever the
playbook started (ssh, modules, a `shell` task's background job, even one that called setsid)
cannot outlive it, and it cannot outlive the RTE (bwrap dies with its parent, this process with
bwrap). SIGTERM is ignored here (inherited, so that bwrap too ignores the RTE's SIGTERM to the
process group) and restored for ansible-playbook.

Without --init the script simply execs ansible-playbook (same pid, same process group).
"""
import os
import signal
import sys


def read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def fifo_at(path, data):
    """A FIFO at `path` that a forked writer fills with `data` for its first reader, then unlinks."""
    os.mkfifo(path, 0o600)
    writer = os.fork()
    if writer == 0:
        try:
            # Blocks until ansible opens it to read; from then on it needs no name.
            w = os.open(path, os.O_WRONLY)
            os.unlink(path)
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
            os.close(w)
        except OSError:
            pass
        os._exit(0)


def exec_playbook(secrets_fifo, secrets, argv):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        if secrets_fifo is not None:
            fifo_at(secrets_fifo, secrets)
    except OSError as error:
        sys.stderr.write("playbook-init: cannot make %s: %s\n" % (secrets_fifo, error.strerror))
        os._exit(2)
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        sys.stderr.write("playbook-init: cannot run %s: %s\n" % (argv[0], error.strerror))
        os._exit(127)


def exit_code(status):
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status), "exit %d" % os.WEXITSTATUS(status)
    sig = os.WTERMSIG(status)
    return 128 + sig, "signal %d" % sig


def main():
    args = sys.argv[1:]
    status_fd = None
    secrets_fd = None
    secrets_fifo = None
    while args and args[0] != "--":
        if args[0] == "--init":
            status_fd = int(args[1])
        elif args[0] == "--secrets-fd":
            secrets_fd = int(args[1])
        elif args[0] == "--secrets-fifo":
            secrets_fifo = args[1]
        else:
            sys.stderr.write("playbook-init: unknown option %s\n" % args[0])
            return 2
        args = args[2:]
    argv = args[1:]
    if (secrets_fd is None) != (secrets_fifo is None) or not argv:
        sys.stderr.write("usage: playbook-init.py [--init STATUS_FD] [--secrets-fd FD --secrets-fifo PATH] -- COMMAND ARGS...\n")
        return 2
    secrets = read_all(secrets_fd) if secrets_fd is not None else b""
    if status_fd is None:
        exec_playbook(secrets_fifo, secrets, argv)
    os.set_inheritable(status_fd, False)
    playbook = os.fork()
    if playbook == 0:
        os.close(status_fd)
        exec_playbook(secrets_fifo, secrets, argv)
    # PID 1: nothing of the playbook's input or output is ours to hold.
    del secrets
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 3):
        try:
            os.dup2(devnull, fd)
        except OSError:
            pass
    code = 1
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == playbook:
            code, said = exit_code(status)
            try:
                os.write(status_fd, (said + "\n").encode())
                os.close(status_fd)
            except OSError:
                pass
    return code


if __name__ == "__main__":
    sys.exit(main())
