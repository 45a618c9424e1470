#!/usr/bin/env bash
# Builds the DocC documentation of every library product (Sources/<Module>/<Module>.docc plus the
# `///` comments of its public symbols) into one static site, .build/docs/site, and fails on any
# DocC warning: a symbol link that does not resolve, an article or topic that does not exist.
#
#   scripts/docs.sh              strict (what CI runs): any warning fails, after every module
#                                has been built, so one run lists them all
#   scripts/docs.sh --lenient    the same site, warnings printed but not fatal (to read the
#                                documentation while a warning is being fixed)
#
# Symbol graphs come from `swift package dump-symbol-graph`, which reuses the debug build (as
# scripts/api-check.sh does), so after `swift build` this costs seconds of extraction and the
# DocC runs. Each module is converted on its own (only its own graphs: <M>.symbols.json and its
# extensions of other modules, <M>@<Other>.symbols.json), Strata first: the others are built with
# it as a dependency, so their pages can link to Strata's symbols with a leading slash
# (``/Strata/Transport``). `docc merge` then combines the five archives into one site, where
# those links land.
#
# Code blocks in the catalogs are compiled by scripts/readme-snippets.sh, not here.
set -euo pipefail
cd "$(dirname "$0")/.."

strict=true
case "${1:-}" in
    --lenient) strict=false ;;
    "") ;;
    *) echo "usage: scripts/docs.sh [--lenient]" >&2; exit 64 ;;
esac

# Strata first: the other three link to it.
modules=(Strata StrataPinning StrataRedis StrataResilience StrataTesting)
docc=$(command -v docc || echo "$(dirname "$(readlink -f "$(command -v swift)")")/docc")
[ -x "$docc" ] || { echo "docs: no docc next to swift ($docc); it ships with the Swift toolchain" >&2; exit 1; }

out=.build/docs
graphs=.build/docs-symbol-graphs
rm -rf "$out" "$graphs"
mkdir -p "$out" "$graphs"

# dump-symbol-graph also extracts the test modules, and exits 1 when they are not built (after a
# plain `swift build`); only the five library modules' graphs matter here, so each is checked to
# have been written by this run.
dump_log="$out/dump-symbol-graph.log"
touch "$out/started"
sleep 1   # file times may have a resolution of a second
swift package dump-symbol-graph --minimum-access-level public > "$dump_log" 2>&1 || true
all=$(sed -n 's/^Files written to //p' "$dump_log")
[ -d "$all" ] || { cat "$dump_log"; echo "docs: swift package dump-symbol-graph wrote no symbol graphs" >&2; exit 1; }
for module in "${modules[@]}"; do
    [ "$all/$module.symbols.json" -nt "$out/started" ] || {
        cat "$dump_log"
        echo "docs: no fresh symbol graph for $module in $all (does \`swift build\` succeed?)" >&2
        exit 1
    }
done

warnings=0   # DocC diagnostics, counted over every module before failing, so one run lists them all
for module in "${modules[@]}"; do
    mkdir -p "$graphs/$module"
    cp "$all/$module.symbols.json" "$graphs/$module/"
    for extension in "$all/$module@"*.symbols.json; do
        [ -f "$extension" ] && cp "$extension" "$graphs/$module/"
    done
    flags=(--additional-symbol-graph-dir "$graphs/$module"
           --output-path "$out/$module.doccarchive"
           --transform-for-static-hosting
           --enable-experimental-external-link-support)
    $strict && flags+=(--warnings-as-errors)
    [ "$module" != Strata ] && flags+=(--dependency "$out/Strata.doccarchive")
    log="$out/$module.log"
    status=0
    "$docc" convert "Sources/$module/$module.docc" "${flags[@]}" > "$log" 2>&1 || status=$?
    # DocC names the Swift files relative to the catalog; name them from the repository root.
    sed -e "s# --> \([^./]\)# --> Sources/$module/$module.docc/\1#" -e "s# --> \.\./# --> Sources/$module/#" "$log" \
        | grep -v -e '^Finished building' -e '^Generated documentation archive' || true
    count=$(grep -cE '^(warning|error):' "$log" || true)
    warnings=$((warnings + count))
    if [ "$status" -ne 0 ] && [ "$count" -eq 0 ]; then
        echo "docs: docc convert failed for $module (exit $status)" >&2
        exit 1
    fi
    echo "docs: $module: $count warning(s)"
    # With --warnings-as-errors DocC writes no archive; the other modules still need Strata's to
    # resolve their links to it (or each such link would be one more, misleading, error).
    if [ "$status" -ne 0 ] && [ "$module" = Strata ]; then
        unstrict=()
        for flag in "${flags[@]}"; do [ "$flag" != --warnings-as-errors ] && unstrict+=("$flag"); done
        "$docc" convert "Sources/$module/$module.docc" "${unstrict[@]}" > /dev/null 2>&1 || true
    fi
done

if [ "$warnings" -gt 0 ] && $strict; then
    echo "docs: $warnings DocC warning(s) above; fix them (scripts/docs.sh --lenient builds the site anyway)" >&2
    exit 1
fi

archives=()
for module in "${modules[@]}"; do archives+=("$out/$module.doccarchive"); done
"$docc" merge "${archives[@]}" --output-path "$out/site" \
    --synthesized-landing-page-name Strata --synthesized-landing-page-kind Package > "$out/merge.log" 2>&1 \
    || { cat "$out/merge.log"; echo "docs: docc merge failed" >&2; exit 1; }
[ -f "$out/site/index.html" ] || { echo "docs: docc merge wrote no site" >&2; exit 1; }

echo "docs: the site is in $out/site (one archive per module beside it: $out/<Module>.doccarchive)."
echo "docs: to read it: python3 -m http.server --directory $out/site 8000"
echo "docs:   then open http://localhost:8000/documentation/strata (and /documentation/stratapinning, ...)"
