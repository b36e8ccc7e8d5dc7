#!/bin/sh
# The --vault-password-file the RTE passes to ansible-playbook when a job has a vault password.
#
# ansible-playbook runs an executable --vault-password-file and takes its stdout as the
# password. This script copies its stdin, inherited from ansible-playbook, whose stdin is the
# pipe the RTE writes the password into and closes. So the password is never in a file on
# disk and never in argv (which `ps` shows to every user of the machine).
#
# Why not `--vault-password-file /dev/stdin`: a Node child's "pipe" stdio is a socketpair, and
# /dev/stdin then resolves to a socket whose mode has the execute bits, so ansible tries to
# run it: "Problem running vault password script /dev/stdin ([Errno 13] Permission denied)".
#
# It must stay executable (mode 755): a non-executable file would be read as the password
# itself. The RTE checks this before it starts a job.
exec cat
