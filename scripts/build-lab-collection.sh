#!/usr/bin/env bash
# Builds the lab example's collection (server/forms/lab-collection/playform/lab) into the tarball
# its form ships and names in requirements.yml (server/forms/examples/lab/vendor/):
#
#   bash scripts/build-lab-collection.sh
#
# test/unit/lab-example.test.ts checks that the tarball holds exactly the source's files.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/server/forms/examples/lab/vendor"
mkdir -p "$out"
ansible-galaxy collection build --force --output-path "$out" "$root/server/forms/lab-collection/playform/lab"
