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
#
# Each scenario runs under valgrind with N and 2N requests (N=1000, or REQUESTS=…); the slope is
# per request, so start-up and warm-up cancel. Each scenario is reported whole (its terminal
# included) and over the terminal alone, as `strata-bench layers` reports time: a layer's own
# work when it calls the terminal once, negative when it answers without it (a fresh hit).
# Why it matters: over loopback TLS the bare pinned client runs about 170,000 instructions per
# request on this machine, so a layer's share of a request's time follows its count (see
# Sources/Strata/Strata.docc/Performance.md, "Counting instructions").
set -euo pipefail
tool=layer-instructions
source "$(dirname "$0")/callgrind-setup.sh"

# run NAME SCENARIO COUNT: the program's total instructions; its per-function table in NAME.tsv.
run() {
    valgrind --tool=callgrind --callgrind-out-file="$work/$1.out" "$bin" layers --only "$2" --rounds 1 \
        --requests "$3" >/dev/null 2>&1 || { echo "layer-instructions: $bin layers failed under valgrind" >&2; exit 1; }
    callgrind_annotate --threshold=100 "$work/$1.out" 2>/dev/null | sed -n '/file:function/,$p' | tail -n +3 \
        | grep -v '=>' | sed -E 's/^ *([0-9,]+) \([^)]*\) +/\1\t/' | tr -d , > "$work/$1.tsv"
    local total
    total=$(callgrind_annotate "$work/$1.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
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
echo "instructions per request, by callgrind ($requests and $((2 * requests)) requests; $bin)"
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
