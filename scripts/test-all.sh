#!/usr/bin/env bash
# Runs every Playform test on a fresh machine: installs what they need (Debian ansible,
# chromium and postgresql; npm dependencies), builds the production bundle, type-checks,
# then runs the unit, integration and browser suites one after the other.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/system-deps.sh
export NEXT_TELEMETRY_DISABLED=1

ensure_node_version
ensure_debian_packages "the tests" ansible:ansible-playbook git:git chromium:chromium postgresql:/usr/lib/postgresql/15/bin/initdb bubblewrap:bwrap curl:curl jq:jq \
  python3-venv:'/usr/lib/python3.*/ensurepip/__init__.py' python3-pip:pip3 \
  python3-setuptools:/usr/lib/python3/dist-packages/setuptools/__init__.py python3-wheel:/usr/lib/python3/dist-packages/wheel/__init__.py sudo:sudo
ensure_node_modules
reports=$(mktemp -d)
# Wall time of each step, for the summary at the end ("step seconds" lines).
timed() {
  local step=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  echo "$step $((SECONDS - start))" >>"$reports/steps.txt"
  return $rc
}
echo "== build"
timed build npm run --silent build
echo "== typecheck"
timed typecheck npx tsc --noEmit
echo "== lint (eslint, import layers, formatting)"
timed lint npm run --silent lint

status=0
for suite in unit integration e2e; do
  echo "== $suite tests"
  PLAYFORM_FILE_TIMES="$reports/file-times.txt" timed "$suite" npx vitest run --project "$suite*" --reporter=default \
    --reporter=json --outputFile.json="$reports/$suite.json" --reporter=./scripts/file-times-reporter.mjs || status=1
done
node scripts/test-summary.mjs --steps "$reports/steps.txt" --file-times "$reports/file-times.txt" \
  "$reports"/unit.json "$reports"/integration.json "$reports"/e2e.json || status=1
exit $status
