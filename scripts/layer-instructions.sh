#!/usr/bin/env bash
# Counts the instructions each layer executes per request with callgrind: a measure that load
# and clock drift do not move (runs agree within a few instructions), to compare two builds or to
# find where a layer's work goes.
#
#   scripts/layer-instructions.sh                      every scenario of `strata-bench layers`
#   scripts/layer-instructions.sh "ETagTransport, 200 stored" ...   only these (whole names, as
#                                                      `strata-bench layers` prints them)
#   BIN=/other/build/strata-bench scripts/layer-instructions.sh     another build (side by side)
#   TOP=30 scripts/layer-instructions.sh "…"           also the 30 functions with the most own
#                                                      instructions per request
#   COLD=1 scripts/layer-instructions.sh "…"           cache lines instead of instructions: what
#                                                      each request fetches beyond L2 when the
#                                                      caches were evicted before it
#
# Each scenario runs under valgrind with N and 2N requests (N=1000, or REQUESTS=…); the slope is
# per request, so start-up and warm-up cancel. Each scenario is reported whole (its terminal
# included) and over the terminal alone, as `strata-bench layers` reports time: a layer's own
# work when it calls the terminal once, negative when it answers without it (a fresh hit).
# Why it matters: over loopback TLS the bare pinned client runs about 170,000 instructions per
# request on this machine, so a layer's share of a request's time follows its count (see
# Sources/Strata/Strata.docc/Performance.md, "Counting instructions"). Over a network, a
# request's trip through the kernel also evicts the layers' code and data from the caches, and
# fetching those lines again costs more than executing the instructions: COLD=1 counts them
# ("Counting cold cache lines"; meaningless for a fresh hit, which never calls the terminal).
set -euo pipefail
tool=layer-instructions
source "$(dirname "$0")/callgrind-setup.sh"

# What is counted: instructions, or with COLD=1 the cache lines a request fetches from beyond the
# last simulated level (instructions and data): before each answer the terminal reads twice that
# level's size and calls code in each line of 128 KiB (x86-64), so every line a layer touches is one it fetches
# again, as after a trip through the kernel; lines a layer touches both before and after its
# call to the terminal count twice, as they do over a network. The caches simulated are this
# machine's L1s, and its L2 as the last level. In this mode only "over terminal" means
# anything: "whole" includes the eviction's own lines.
events=Ir
valgrind_flags=()
bench_flags=()
if [ -n "${COLD:-}" ]; then
    # The terminal evicts the instruction cache by calling x86-64 code it writes; elsewhere the
    # layers' code would be under-counted.
    [ "$(uname -m)" = x86_64 ] || { echo "layer-instructions: COLD=1 needs an x86-64 machine" >&2; exit 2; }
    cache=/sys/devices/system/cpu/cpu0/cache
    geometry() { # level type -> size,ways,line for valgrind
        local index
        for index in "$cache"/index*; do
            [ "$(cat "$index/level")" = "$1" ] && [ "$(cat "$index/type")" = "$2" ] || continue
            echo "$(($(sed 's/K$//' "$index/size") * 1024)),$(cat "$index/ways_of_associativity"),$(cat "$index/coherency_line_size")"
            return
        done
        echo "layer-instructions: no level-$1 $2 cache in $cache (COLD=1 needs it)" >&2
        exit 2
    }
    # One assignment each: a failed lookup's exit must stop the script.
    l1i=$(geometry 1 Instruction)
    l1d=$(geometry 1 Data)
    l2=$(geometry 2 Unified)
    events=ILmr,DLmr,DLmw
    valgrind_flags=(--cache-sim=yes "--I1=$l1i" "--D1=$l1d" "--LL=$l2")
    bench_flags=(--evict-bytes $((2 * ${l2%%,*})))
fi

# run NAME SCENARIO COUNT: the program's total of the counted events; its per-function table
# (count, tab, function) in NAME.tsv.
run() {
    valgrind --tool=callgrind "${valgrind_flags[@]}" --callgrind-out-file="$work/$1.out" "$bin" layers \
        --only "$2" --rounds 1 --requests "$3" "${bench_flags[@]}" >/dev/null 2>&1 \
        || { echo "layer-instructions: $bin layers failed under valgrind" >&2; exit 1; }
    # Each event's count is followed by its share, "( 1.2%)", dropped here; "." counts nothing.
    callgrind_annotate --show="$events" --threshold=100 --auto=no "$work/$1.out" 2>/dev/null | sed -n '/file:function/,$p' \
        | tail -n +3 | grep -v '=>' | sed -E 's/\( *[0-9.]+%\)//g' | awk -v n="$(tr -cd , <<<"$events" | wc -c)" '{
            total = 0
            for (field = 1; field <= n + 1; field++) { value = $field; gsub(",", "", value); if (value != ".") total += value }
            name = ""; for (; field <= NF; field++) name = name (name == "" ? "" : " ") $field
            printf "%.0f\t%s\n", total, name
        }' > "$work/$1.tsv"
    local total
    total=$(callgrind_annotate --show="$events" --auto=no "$work/$1.out" 2>/dev/null | sed -E 's/\( *[0-9.]+%\)//g' | awk '/PROGRAM TOTALS/ {
        total = 0; for (field = 1; $field != "PROGRAM"; field++) { gsub(",", "", $field); total += $field }
        printf "%.0f\n", total }')
    [ -n "$total" ] || { echo "layer-instructions: callgrind_annotate gave no total for \"$2\"" >&2; exit 1; }
    echo "$total"
}

terminal="in-memory terminal alone"
listing=$("$bin" layers --rounds 1 --requests 1 2>/dev/null \
    | awk '/^scenario/ { table = 1; next } table && NF > 3 && !/^load/ { sub(/  +[0-9,].*/, ""); print }' \
    | grep -v "^$terminal\$") || true
[ -n "$listing" ] || { echo "layer-instructions: $bin layers listed no scenario" >&2; exit 1; }
mapfile -t known <<<"$listing"
if [ $# -eq 0 ]; then
    scenarios=("${known[@]}")
else
    scenarios=("$@")
    # `--only` matches parts of names: a part would sum several scenarios into one row.
    for scenario in "${scenarios[@]}"; do
        printf '%s\n' "${known[@]}" | grep -qxF -- "$scenario" || {
            echo "layer-instructions: no scenario is named \"$scenario\"; the names are:" >&2
            printf '  %s\n' "${known[@]}" >&2
            exit 64
        }
    done
fi

t1=$(run t1 "$terminal" "$requests")
t2=$(run t2 "$terminal" $((2 * requests)))
if [ -n "${COLD:-}" ]; then
    echo "cache lines fetched beyond L2 per request, caches evicted before each ($requests and $((2 * requests)) requests; $bin)"
else
    echo "instructions per request, by callgrind ($requests and $((2 * requests)) requests; $bin)"
fi
printf '%-52s %12s %16s\n' scenario whole "over terminal"
printf '%-52s %12s\n' "$terminal" $(((t2 - t1) / requests))
for scenario in "${scenarios[@]}"; do
    s1=$(run s1 "$scenario" "$requests")
    s2=$(run s2 "$scenario" $((2 * requests)))
    printf '%-52s %12s %16s\n' "$scenario" $(((s2 - s1 - (t2 - t1)) / requests)) $(((s2 - s1 - 2 * (t2 - t1)) / requests))
    if [ -n "${TOP:-}" ]; then
        awk -F'\t' -v n="$requests" '
            FNR == 1 { file++ }
            file == 1 { t1[$2] = $1; next }
            file == 2 { t2[$2] = $1; next }
            file == 3 { s1[$2] = $1; seen[$2] = 1; next }
            { s2[$2] = $1; seen[$2] = 1 }
            END { for (f in seen) { d = ((s2[f] - s1[f]) - 2 * (t2[f] - t1[f])) / n; if (d > 3) printf "%10.1f  %s\n", d, f } }
        ' "$work/t1.tsv" "$work/t2.tsv" "$work/s1.tsv" "$work/s2.tsv" | sort -rn | head -"$TOP" \
            | swift demangle --simplified | sed -E 's# \[/[^]]*\]##' | cut -c1-160 || true
    fi
done
