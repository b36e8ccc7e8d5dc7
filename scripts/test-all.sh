#!/usr/bin/env bash
# Runs every Playform test on a fresh machine: installs what they need (Debian ansible,
# chromium and postgresql; npm dependencies), builds the production bundle, type-checks,
# then runs the unit, integration and browser suites one after the other.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/system-deps.sh
export NEXT_TELEMETRY_DISABLED=1

ensure_node_version
ensure_debian_packages "the tests" ansible:ansible-playbook git:git chromium:chromium postgresql:/usr/lib/postgresql/15/bin/initdb
ensure_node_modules
echo "== build"
npm run --silent build
echo "== typecheck"
npx tsc --noEmit
echo "== lint (eslint, import layers, formatting)"
npm run --silent lint

reports=$(mktemp -d)
status=0
for suite in unit integration e2e; do
  echo "== $suite tests"
  npx vitest run --project "$suite" --reporter=default --reporter=json --outputFile.json="$reports/$suite.json" || status=1
done
node scripts/test-summary.mjs "$reports"/*.json || status=1
exit $status
