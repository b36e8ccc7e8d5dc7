#!/usr/bin/env bash
# The one command that starts Playform on a fresh machine: installs the npm dependencies,
# builds, then runs `npm start` (migrations, admin account, example forms, app + local RTE).
# Configuration comes from the environment: PORT, DATABASE_URL, PLAYFORM_ADMIN_PASSWORD, ...
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/system-deps.sh
export NEXT_TELEMETRY_DISABLED=1

ensure_node_version
if ! command -v ansible-playbook >/dev/null 2>&1; then
  # Try to install it; without root this only explains. The UI still starts either way.
  ensure_debian_packages "running jobs" ansible:ansible-playbook git:git || \
    echo "playform: starting anyway; jobs will fail until ansible-playbook is installed" >&2
fi
if ! command -v bwrap >/dev/null 2>&1; then
  # Playbooks run in a pid namespace of their own under bubblewrap, so none outlives its runner.
  ensure_debian_packages "sandboxing playbooks" bubblewrap:bwrap || \
    echo "playform: starting anyway; playbooks run without bubblewrap's pid namespace (see docs/rte.md)" >&2
fi
# A form's requirements.txt is installed with pip into a virtual environment (docs/forms.md).
ensure_debian_packages "installing forms' requirements.txt" python3-venv:'/usr/lib/python3.*/ensurepip/__init__.py' python3-pip:pip3 || \
  echo "playform: starting anyway; forms with a requirements.txt fail until python3-venv is installed" >&2
ensure_node_modules
if [ ! -f dist/server.js ] || [ ! -f .next/BUILD_ID ] || [ -n "$(find app components server next.config.js package-lock.json -newer dist/server.js -type f -print -quit 2>/dev/null)" ]; then
  # The build's own output (Next's route table, bundler notes) is for developers: kept in a file,
  # shown only when the build fails.
  build_log="$(mktemp "${TMPDIR:-/tmp}/playform-build.XXXXXX")"
  echo "playform: building (next build + server bundle, a minute or two)"
  if ! npm run --silent build >"$build_log" 2>&1; then
    cat "$build_log" >&2
    echo "playform: the build failed (its output is above, and in $build_log)" >&2
    exit 1
  fi
  rm -f "$build_log"
  echo "playform: built"
fi
if [ "$(id -u)" -ne 0 ]; then
  # Only root can run playbooks as another user; the local runner says so again at its start.
  echo "playform: not root: the local runner runs playbooks as $(id -un), who can read this app's secrets" >&2
  echo "playform: (start as root to run them as playform-run; docs/security.md: "Fault tolerance and security")" >&2
fi
exec npm start
