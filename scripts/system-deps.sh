# Debian packages Playform needs, installed when missing. Sourced by quickstart.sh and test-all.sh.
#   ensure_debian_packages "reason" pkg:command [pkg:command ...]   (command: a name on PATH, or a path of the package, globs allowed)
# Installs (as root, or through sudo) each package whose command is not on PATH. Without root
# or sudo, says what to install and returns 1.

ensure_debian_packages() {
  local reason=$1; shift
  local missing=() pair pkg cmd
  for pair in "$@"; do
    pkg=${pair%%:*}; cmd=${pair#*:}
    # A command on PATH, an executable's path, or a file of the package (a path, globs allowed).
    command -v "$cmd" >/dev/null 2>&1 || [ -x "$cmd" ] || { [[ $cmd == /* ]] && compgen -G "$cmd" >/dev/null; } || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; else
      echo "playform: $reason needs these Debian packages: ${missing[*]}" >&2
      echo "          install them with: sudo apt-get install -y ${missing[*]}" >&2
      return 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "playform: $reason needs: ${missing[*]} (no apt-get here: install them with your package manager)" >&2
    return 1
  fi
  echo "playform: installing ${missing[*]} ($reason)"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# npm ci when node_modules is missing or older than the lock file.
ensure_node_modules() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "playform: installing npm dependencies (npm ci)"
    npm ci --no-audit --no-fund
  fi
}

ensure_node_version() {
  # The versions Prisma 7 supports (package.json "engines"): 20.19+, 22.12+, 24 and later.
  local supported
  supported=$(node -p 'const [a, b] = process.versions.node.split(".").map(Number); (a === 20 && b >= 19) || (a === 22 && b >= 12) || a >= 24' 2>/dev/null || echo false)
  if [ "$supported" != "true" ]; then
    echo "playform: Node.js 20.19+, 22.12+ or 24+ is required (found: $(node --version 2>/dev/null || echo none))" >&2
    exit 1
  fi
}
