#!/usr/bin/env bash
# Checks that the public API of every library product is exactly the checked-in list in api/.
#
#   scripts/api-check.sh            fails with a diff when a public declaration was added, removed
#                                   or changed without updating api/<Module>.txt
#   scripts/api-check.sh --update   rewrites api/<Module>.txt from the code (commit the diff, and
#                                   say in the change why the public API changed)
#
# One line per public symbol: its path, kind and declaration (see scripts/api-symbols.swift).
# Reuses the debug build, so it costs a symbol-graph extraction (seconds) after `swift build`.
set -euo pipefail
cd "$(dirname "$0")/.."

update=false
case "${1:-}" in
    --update) update=true ;;
    "") ;;
    *) echo "usage: scripts/api-check.sh [--update]" >&2; exit 64 ;;
esac

work=.build/api-check
rm -rf "$work"
mkdir -p "$work"
swift package dump-package > "$work/package.json"
graphs=$(swift package dump-symbol-graph --minimum-access-level public 2>&1 | sed -n 's/^Files written to //p')
[ -d "$graphs" ] || { echo "api-check: swift package dump-symbol-graph wrote no symbol graphs" >&2; exit 1; }
swift scripts/api-symbols.swift "$work/package.json" "$graphs" "$work/current"

if $update; then
    mkdir -p api
    rm -f api/*.txt
    cp "$work"/current/*.txt api/
    echo "api-check: api/ updated; review and commit the diff"
    exit 0
fi

status=0
for file in "$work"/current/*.txt; do
    module=$(basename "$file" .txt)
    if [ ! -f "api/$module.txt" ]; then
        echo "api-check: $module has no api/$module.txt; run scripts/api-check.sh --update and commit it" >&2
        status=1
    elif ! diff -u "api/$module.txt" "$file" > "$work/$module.diff"; then
        echo "api-check: the public API of $module changed (- checked in, + code):" >&2
        cat "$work/$module.diff" >&2
        status=1
    fi
done
for file in api/*.txt; do
    [ -f "$work/current/$(basename "$file")" ] || { echo "api-check: $file names a module that is no longer a library product" >&2; status=1; }
done
if [ $status -ne 0 ]; then
    echo "api-check: if the change is intended, run scripts/api-check.sh --update and commit api/" >&2
fi
exit $status
