#!/usr/bin/env bash
# Runs the whole test suite under ThreadSanitizer and under AddressSanitizer (with LeakSanitizer)
# and fails on any report.
#
#   scripts/sanitizers.sh [thread] [address]     (no argument: both, thread first)
#
# Each sanitizer builds into its own scratch directory (.build/sanitizers/<name>), so the
# instrumented builds never replace the normal one and stay incremental between runs.
#
# A run fails when `swift test` fails, or when any process of the run (the test runner, and the
# strata-demo and etag-store-writer children the tests start) wrote a sanitizer report: reports
# go to files (log_path) and the script checks that none exists, then greps the output too.
# The only suppression is LeakSanitizer's, for the toolchain's own test harness: see
# scripts/lsan-suppressions.txt.
#
# Two settings keep wall-clock bounds meaningful under the sanitizers' 2–15× slowdown:
# - STRATA_TEST_TIME_SCALE=10 (unless set): every wall-clock bound in the suite is scaled by it
#   (Tests/TestSupport/TestTimeScale.swift), never loosened for the normal run.
# - --no-parallel: Swift Testing runs every test as a task on a cooperative pool as wide as the
#   machine has cores. Instrumented, a few CPU-heavy tests (a 1 MB payload built byte by byte,
#   20,000 fuzz inputs) hold both of a two-core machine's pool threads for seconds, and every other
#   test's timer and continuation waits behind them: measured stalls of 7–16 s, longer than any
#   bound could sensibly be scaled. One test at a time, the sanitizers see the same code paths
#   (each test is still concurrent inside) without that queueing.
set -uo pipefail
cd "$(dirname "$0")/.."

sanitizers=("$@")
[[ ${#sanitizers[@]} -gt 0 ]] || sanitizers=(thread address)
export STRATA_TEST_TIME_SCALE="${STRATA_TEST_TIME_SCALE:-10}"
# Resident-memory bounds mean nothing under a sanitizer (quarantine, shadow memory): tests skip them.
export STRATA_SANITIZER=1
failed=()

for sanitizer in "${sanitizers[@]}"; do
    case "$sanitizer" in
        thread|address) ;;
        *) echo "unknown sanitizer '$sanitizer': use thread and/or address" >&2; exit 64 ;;
    esac
    scratch=".build/sanitizers/$sanitizer"
    reports="$PWD/$scratch/reports"
    rm -rf "$reports"
    mkdir -p "$reports"
    log="$scratch/test.log"
    started=$SECONDS
    echo "== $sanitizer sanitizer: building into $scratch"
    if ! swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | tail -3; then
        failed+=("$sanitizer (build)")
        continue
    fi
    built=$SECONDS
    echo "== $sanitizer sanitizer: testing (STRATA_TEST_TIME_SCALE=$STRATA_TEST_TIME_SCALE, one test at a time)"
    # log_path: every process's report lands in $reports/<kind>.<pid>, children's too.
    # fast_unwind_on_malloc=0: the frame-pointer unwinder stops inside OpenSSL (built without
    # frame pointers), and a leak whose stack ends there could be neither attributed nor
    # precisely suppressed. The full unwinder makes the run several times slower.
    TSAN_OPTIONS="log_path=$reports/tsan:halt_on_error=0:second_deadlock_stack=1" \
    ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:fast_unwind_on_malloc=0:check_initialization_order=1:strict_init_order=1" \
    LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=1" \
        swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --no-parallel > "$log" 2>&1
    status=$?
    finished=$SECONDS
    grep -E "Test run with|Executed [0-9]+ test" "$log" | tail -2
    report_files=$(find "$reports" -type f | sort)
    # A report file holding only LeakSanitizer's list of suppressions used is not a finding.
    findings=""
    for file in $report_files; do
        if grep -qE "WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|SUMMARY: (Thread|Address|Leak)Sanitizer" "$file"; then
            findings+="$file "
        fi
    done
    if grep -qE "WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer" "$log"; then
        findings+="$log "
    fi
    echo "== $sanitizer sanitizer: build $((built - started)) s, tests $((finished - built)) s, swift test exit $status"
    if [[ -n "$findings" ]]; then
        echo "== $sanitizer sanitizer REPORTS in: $findings"
        for file in $findings; do sed -n '1,80p' "$file"; done
        failed+=("$sanitizer (reports)")
    elif [[ $status -ne 0 ]]; then
        grep -E "✘|error:|failed" "$log" | head -40
        failed+=("$sanitizer (tests failed, see $log)")
    else
        echo "== $sanitizer sanitizer: clean"
        # What the suppressions hid, summed over every process: count, bytes, pattern.
        # shellcheck disable=SC2086
        cat $report_files /dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF == 3 { n[$3] += $1; b[$3] += $2 }
            END { for (t in n) printf "   suppressed: %6d allocations, %8d bytes  %s\n", n[t], b[t], t }' 
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "sanitizers FAILED: ${failed[*]}"
    exit 1
fi
echo "sanitizers clean: ${sanitizers[*]}"
