#!/usr/bin/env bash
# Counts the instructions the pinned client executes per request over loopback TLS, bare and
# under the README's stack, sequential and with 16 tasks: what `strata-bench pinned` times, in a
# measure that load and clock drift do not move (totals agree within 4% sequentially, 6% with 16
# tasks, as the runtime's one-off work lands in one run or another; timings here vary by 10% and
# more). For a change smaller than that, compare single functions' counts.
#
#   scripts/network-instructions.sh                 the four HTTP/1.1 variants
#   BIN=/other/build/strata-bench scripts/network-instructions.sh    another build (side by side)
#
# Each variant runs `strata-bench pinned --builtin-server` under callgrind with N and 2N requests
# (N=1000, or REQUESTS=…); the slope is per request. The built-in server runs in the same process
# (valgrind cannot start nginx), so its instructions (everything under its threads' loop) are
# taken away: what is left is the client's. See Sources/Strata/Strata.docc/Performance.md.
set -euo pipefail
tool=network-instructions
source "$(dirname "$0")/callgrind-setup.sh"
command -v swift >/dev/null || { echo "network-instructions: swift is needed (swift demangle)" >&2; exit 2; }

# client NAME COUNT: the instructions outside the built-in server, for COUNT requests of the
# variant named exactly NAME (`$` anchors `--only` at the end: "c=1" is not "c=16").
client() {
    local out="$work/callgrind.out" total server
    valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" pinned --builtin-server --only "$1\$" \
        --rounds 1 --requests "$2" >"$work/log" 2>&1 || {
        echo "network-instructions: $bin pinned failed under valgrind:" >&2
        tail -5 "$work/log" >&2
        exit 1
    }
    total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    # The server's loop itself, not a closure inside it (`serve` is never inlined).
    server=$(callgrind_annotate --inclusive=yes "$out" 2>/dev/null | swift demangle --simplified \
        | awk '/LoopbackHTTPServer\.Threads\.serve\(_:\)/ && !/closure/ { gsub(",", "", $1); print $1; exit }')
    [ -n "$total" ] && [ -n "$server" ] || {
        echo "network-instructions: no count for \"$1\" (did the variant run?)" >&2
        exit 1
    }
    echo $((total - server))
}

stack="Reauth → Retry → ETag → PinningTransport"
echo "client instructions per request, by callgrind ($requests and $((2 * requests)) requests; $bin)"
printf '%-8s %14s %14s %14s\n' tasks bare "full stack" "stack − bare"
for tasks in 1 16; do
    b1=$(client "PinningTransport alone c=$tasks" "$requests")
    b2=$(client "PinningTransport alone c=$tasks" $((2 * requests)))
    s1=$(client "$stack c=$tasks" "$requests")
    s2=$(client "$stack c=$tasks" $((2 * requests)))
    bare=$(((b2 - b1) / requests)) layered=$(((s2 - s1) / requests))
    printf '%-8s %14s %14s %14s\n' "$tasks" "$bare" "$layered" $((layered - bare))
done
