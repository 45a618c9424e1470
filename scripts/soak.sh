#!/usr/bin/env bash
# The recommended stack under faults (Bench/strata-soak): builds strata-soak in release and runs
# it. Three rounds of 10,000 requests from 64 concurrent tasks against the loopback TLS server
# injecting 5% 503, 1% connection resets and a token expiry every 1,000 requests; fails (exit 1)
# if a request is lost, an idempotent request fails, a POST without an Idempotency-Key reaches
# the server twice, refreshes and expiries differ, a token is logged, or memory, threads or
# open files grow from round 1 to round 3.
#
#   scripts/soak.sh [--quick]     (--quick: 2,000 requests a round)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product strata-soak 2>&1 | tail -1
exec "$(swift build -c release --show-bin-path)/strata-soak" "$@"
