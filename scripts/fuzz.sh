#!/usr/bin/env bash
# Builds one libFuzzer target under Fuzz/ and runs it for SECONDS.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   scripts/fuzz.sh list
#
# A target is a Swift file under Fuzz/<Name>/ that defines `fuzz(_:)`, compiled together with
# Fuzz/Support (plus the tests' SeededGenerator) and the sources of the module it tests, so it
# reaches internal parsers without widening their access. Strata is built once as an instrumented
# static library (rebuilt when a source changes); the tested module is compiled with the target.
# Everything is built with `-sanitize=fuzzer,address`: coverage-guided, and every memory error or
# leak is a finding.
#
# Seeds are read from Fuzz/<Name>/Seeds (committed, small); what the fuzzer learns goes to
# .build/fuzz/corpus/<target>, findings to .build/fuzz/findings/<target>/. The run's last lines
# (executions, cov:, ft:) are what RELIABILITY.md records. Exit status: 0 when the run ended
# without a finding, libFuzzer's (non-zero) otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]   (scripts/fuzz.sh list)" >&2
    exit 64
}

# target name -> directory under Fuzz/ and the module its sources are compiled into.
target_dir() {
    case "$1" in
        http1-response) echo "HTTP1Response StrataPinning" ;;
        retry-after)    echo "RetryAfter Strata" ;;
        spki-pin)       echo "SPKIPin StrataPinning" ;;
        certificate)    echo "Certificate StrataPinning" ;;
        etag-entry)     echo "ETagEntryFile Strata" ;;
        resp)           echo "RESP StrataRedis" ;;
        server-sent-events) echo "ServerSentEvents Strata" ;;
        json-lines)     echo "JSONLines Strata" ;;
        *) return 1 ;;
    esac
}
targets="http1-response retry-after spki-pin certificate etag-entry resp server-sent-events json-lines"

[[ $# -ge 1 ]] || usage
if [[ "$1" == list ]]; then
    echo "$targets" | tr ' ' '\n'
    exit 0
fi
[[ $# -ge 2 && "$2" =~ ^[0-9]+$ ]] || usage
target="$1"; seconds="$2"; shift 2
read -r directory module < <(target_dir "$target") || { echo "unknown target '$target'; one of: $targets" >&2; exit 64; }

build=.build/fuzz
mkdir -p "$build/lib" "$build/corpus/$target" "$build/findings/$target"
# Flags shared by every compile: optimized (fuzzing is about executions per second) but with
# Swift's checks kept (-O, not -Ounchecked), debug info for readable crash stacks.
flags=(-swift-version 6 -package-name strata -parse-as-library -O -g -sanitize=fuzzer,address)
# ld.gold warns about every ASan helper symbol it cannot export; those lines are noise.
quiet() { grep -v "Cannot export local symbol" || true; }

sources_of() { find "Sources/$1" -name '*.swift' | sort; }
# Compiled into every target: the entry point and input reader, and the tests' seeded generator.
support=(Fuzz/Support/*.swift Tests/TestServer/SeededGenerator.swift)

# Strata and StrataConnect (which StrataPinning and StrataRedis stand on), and StrataPinning (whose
# TLS StrataRedis uses), as instrumented static libraries, each rebuilt only when one of its
# sources is newer. Arguments after the name go to swiftc (C module search paths).
static_library() {
    local name="$1" library="$build/lib/lib$1.a"
    shift
    if [[ ! -f "$library" ]] || [[ -n "$(find "Sources/$name" -name '*.swift' -newer "$library" | head -1)" ]]; then
        echo "building $name for fuzzing" >&2
        # shellcheck disable=SC2046
        swiftc "${flags[@]}" -module-name "$name" -I "$build/lib" -emit-library -static -emit-module \
            -emit-module-path "$build/lib/$name.swiftmodule" -o "$library" "$@" $(sources_of "$name") 2>&1 | quiet
    fi
}

binary="$build/$target"
rm -f "$binary"
echo "building $target" >&2
case "$module" in
    Strata)
        # The target is compiled into Strata itself.
        # shellcheck disable=SC2046
        swiftc "${flags[@]}" -module-name Strata $(sources_of Strata) "${support[@]}" "Fuzz/$directory"/*.swift \
            -o "$binary" 2>&1 | quiet
        ;;
    *)
        # The target is compiled into $module, which imports Strata and StrataConnect
        # (StrataPinning also OpenSSL, nghttp2, zlib, and brotli and zstd where their headers are
        # installed, as Package.swift decides; StrataRedis also StrataPinning).
        static_library Strata
        static_library StrataConnect
        includes=(-I Sources/COpenSSL -I Sources/CNGHTTP2 -I Sources/CZlib)
        links=(-lz)
        if [[ -f /usr/include/brotli/decode.h ]]; then includes+=(-I Sources/CBrotli -D STRATA_BROTLI); links+=(-lbrotlidec); fi
        if [[ -f /usr/include/zstd.h ]]; then includes+=(-I Sources/CZstd -D STRATA_ZSTD); links+=(-lzstd); fi
        libraries=("$build/lib/libStrataConnect.a" "$build/lib/libStrata.a")
        if [[ "$module" == StrataRedis ]]; then
            static_library StrataPinning "${includes[@]}"
            libraries=("$build/lib/libStrataPinning.a" "${libraries[@]}")
        fi
        # shellcheck disable=SC2046
        swiftc "${flags[@]}" -module-name "$module" -I "$build/lib" "${includes[@]}" \
            $(sources_of "$module") "${support[@]}" "Fuzz/$directory"/*.swift \
            "${libraries[@]}" -lssl -lcrypto -lnghttp2 "${links[@]}" -o "$binary" 2>&1 | quiet
        ;;
esac
[[ -x "$binary" ]] || { echo "building $target failed" >&2; exit 1; }

echo "fuzzing $target for $seconds s" >&2
# A failed check is a fatalError; Swift's own crash backtracer would then read memory ASan
# reports on, burying the finding under a second report.
export SWIFT_BACKTRACE=enable=no
# -timeout: an input taking over 10 s is a hang, reported as a finding. -rss_limit_mb: far above
# what any limit in Strata allows a parser to hold.
exec "$binary" "$build/corpus/$target" "Fuzz/$directory/Seeds" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/findings/$target/" "$@"
