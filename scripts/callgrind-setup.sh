# Sourced by the instruction-counting scripts (scripts/layer-instructions.sh,
# scripts/network-instructions.sh) after `set -euo pipefail`, with `tool` set to the script's
# name: checks for valgrind, builds strata-bench (unless BIN names another build), and sets
# `bin`, `requests` (REQUESTS, default 1000) and `work`, a directory removed on exit.

# Hashing seeded the same way in every run: dictionary probes then cost the same each time.
export SWIFT_DETERMINISTIC_HASHING=1
if [ -n "${BIN:-}" ]; then BIN=$(realpath "$BIN"); fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."

command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
    echo "$tool: valgrind is not installed (apt-get install valgrind)" >&2
    exit 2
}
bin=${BIN:-.build/release/strata-bench}
if [ -z "${BIN:-}" ]; then swift build -c release --product strata-bench >/dev/null; fi
requests=${REQUESTS:-1000}
[[ $requests =~ ^[1-9][0-9]*$ ]] || { echo "$tool: REQUESTS must be a positive number" >&2; exit 64; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
