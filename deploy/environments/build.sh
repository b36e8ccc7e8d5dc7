#!/usr/bin/env bash
# Builds the extra Ansible environments of a runner image, and the environments.yaml that lists
# them with the distribution's ansible as `default` (RTE_ENVIRONMENTS, docs/rte.md).
#
#   deploy/environments/build.sh OUT_DIR SPEC...
#
# Each SPEC is `NAME=REQUIREMENTS`: a virtual environment OUT_DIR/NAME is made with this image's
# python3 and REQUIREMENTS (a pip requirements file, or requirement specifiers separated by
# spaces) installed into it with pip, from the index and links pip is given by its own
# environment variables (PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX...: an internal mirror or
# a folder of wheels; nothing else is reached). Then OUT_DIR/environments.yaml is written:
#
#   environments:
#     - name: default            # the distribution's ansible (/usr/bin)
#     - name: NAME               # OUT_DIR/NAME/bin, one per SPEC
#
# The Dockerfile's rte stage runs it with its build args (ANSIBLE_ENVIRONMENTS, PIP_INDEX_URL,
# PIP_FIND_LINKS); test/integration/image-environments.test.ts runs it against a local wheel.
set -euo pipefail

if [ "$#" -lt 1 ]; then
  echo "usage: $0 OUT_DIR [NAME=REQUIREMENTS ...]" >&2
  exit 2
fi
out="$1"
shift
# Build args arrive empty when not given: an empty PIP_INDEX_URL is no index for pip, not "unset".
for var in PIP_INDEX_URL PIP_FIND_LINKS PIP_NO_INDEX; do
  if [ -z "${!var:-}" ]; then unset "$var"; fi
done
python="${PYTHON:-python3}"
mkdir -p "$out"
yaml="$out/environments.yaml.new"
{
  echo "# Written by deploy/environments/build.sh: the environments this image's runner offers."
  echo "environments:"
  echo "  - name: default"
  echo "    bin: /usr/bin"
  echo "    description: the distribution's ansible"
} > "$yaml"

for spec in "$@"; do
  name="${spec%%=*}"
  requirements="${spec#*=}"
  if [ "$name" = "$spec" ] || [ -z "$requirements" ]; then
    echo "$0: '$spec' is not NAME=REQUIREMENTS (e.g. k8s-2.18='ansible-core>=2.18,<2.19 netaddr jmespath')" >&2
    exit 2
  fi
  if ! [[ "$name" =~ ^[a-z0-9][a-z0-9._-]{0,31}$ ]] || [ "$name" = "default" ]; then
    echo "$0: environment name '$name' must be 1-32 of a-z 0-9 . _ - and not 'default'" >&2
    exit 2
  fi
  venv="$out/$name"
  echo "== environment $name: $requirements"
  "$python" -m venv "$venv"
  if [ -f "$requirements" ]; then
    "$venv/bin/pip" install --disable-pip-version-check --no-cache-dir -r "$requirements"
  else
    # shellcheck disable=SC2086 # specifiers separated by spaces, on purpose
    "$venv/bin/pip" install --disable-pip-version-check --no-cache-dir $requirements
  fi
  {
    echo "  - name: $name"
    echo "    bin: $name/bin"
    echo "    description: \"$(printf '%s' "$requirements" | sed 's/["\\]/\\&/g')\""
  } >> "$yaml"
done
mv "$yaml" "$out/environments.yaml"
echo "== wrote $out/environments.yaml"
