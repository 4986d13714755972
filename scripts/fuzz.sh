#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ and runs each for a bounded time.
#   scripts/fuzz.sh [TARGET...]     default: every directory under Fuzz/Sources
#   FUZZ_SECONDS=30                 time per target
# Each target runs on a copy of Fuzz/Corpus/<target>, so the committed corpus never changes.
# Crash, leak and timeout inputs land in artifacts/fuzz/<target>/; commit them to the corpus
# once the bug is fixed. Exits non-zero if any target finds one.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${FUZZ_SECONDS:-30}"
cd "$repo/Fuzz"

if (( $# > 0 )); then
    targets=("$@")
else
    targets=()
    for dir in Sources/*/; do
        targets+=("$(basename "$dir")")
    done
fi
if (( ${#targets[@]} == 0 )); then
    echo "fuzz: no targets under Fuzz/Sources" >&2
    exit 1
fi

mkdir -p "$repo/artifacts/fuzz"
build_log="$repo/artifacts/fuzz/build.log"
echo "fuzz: building ${targets[*]} with -sanitize=fuzzer,address (log: artifacts/fuzz/build.log)"
# swiftc keeps only the last -sanitize= flag, and SwiftPM's --sanitize reaches only the fuzz
# targets themselves: pass both sanitizers and the coverage flags to every module, so the
# parsers under test are instrumented. Built clean: an incremental rebuild was seen to drop
# the instrumentation.
rm -rf .build
if ! swift build --sanitize=fuzzer \
        -Xswiftc -sanitize=fuzzer,address \
        -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
        > "$build_log" 2>&1; then
    grep -v 'ld.gold: warning: Cannot export local symbol' "$build_log" | tail -n 60
    echo "fuzz: build failed"
    exit 1
fi
tail -n 1 "$build_log"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=()
for target in "${targets[@]}"; do
    binary=".build/debug/$target"
    out="$repo/artifacts/fuzz/$target"
    mkdir -p "$out" "$work/$target"
    if [[ -d "Corpus/$target" ]]; then
        cp -R "Corpus/$target/." "$work/$target/"
    else
        echo "fuzz: warning: no seed corpus Fuzz/Corpus/$target"
    fi
    seeds=$(find "$work/$target" -type f | wc -l)
    echo "fuzz: $target for ${seconds}s from $seeds seeds"
    rc=0
    # Swift's own crash reporter trips AddressSanitizer after a trap and hides the real report.
    # Fuzz/lsan.supp: Swift's weak-reference side tables, which LeakSanitizer cannot trace.
    SWIFT_BACKTRACE=enable=no LSAN_OPTIONS="suppressions=$repo/Fuzz/lsan.supp:print_suppressions=0" "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/" "$work/$target" > "$out/log.txt" 2>&1 || rc=$?
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$out/log.txt" | sed "s/^/fuzz: $target /" || true
    # A target whose parsers are not instrumented explores nothing: treat that as a failure.
    if grep -q 'no interesting inputs were found' "$out/log.txt"; then
        echo "fuzz: $target is not instrumented for coverage"
        rc=1
    fi
    if (( rc != 0 )); then
        echo "fuzz: $target FAILED (exit $rc); inputs in artifacts/fuzz/$target/:"
        ls "$out" | grep -v '^log.txt$' | sed 's/^/    /' || true
        grep -E -A25 'ERROR: |==ERROR|Fatal error|deadly signal' "$out/log.txt" | head -60 || tail -40 "$out/log.txt"
        failed+=("$target")
    fi
done

if (( ${#failed[@]} > 0 )); then
    echo "fuzz: failed: ${failed[*]}"
    exit 1
fi
echo "fuzz: ${#targets[@]} target(s) ran ${seconds}s each without a crash"
