#!/usr/bin/env bash
# The test command (CI runs exactly this through .ci/run). Stages, each bounded in time:
#   deps     scripts/install-deps.sh --test
#   build    swift build -c release          (the server binary the interop suite runs)
#   package  scripts/check-package.sh: builds the .deb (static Swift runtime), checks its
#            libraries, Depends, lintian and the systemd unit, and runs a publisher and a
#            player through the extracted server with the packaged config
#   layers   scripts/check-layering.sh: every import of a package module is declared in
#            Package.swift and allowed by docs/design.md, and design.md's module table matches
#            Package.swift; then (called at its end) scripts/check-doc-links.py: every
#            relative markdown link resolves; then scripts/check-sdk-types.sh (tsc on the
#            browser SDK's declarations, web/sdk/sluice.d.ts)
#   sdk      scripts/check-sdk-dependency.sh: a throwaway app depends on SluiceClient by
#            version (a local git repo tagged with SluiceVersion.swift's) and builds; fails if SwiftPM refuses it
#   unit     swift test
#   alloc    swift test -c release --filter ForwardingAllocationTests (zero allocations per packet)
#   fuzz     scripts/fuzz.sh                  (every target, FUZZ_SECONDS each, default 20)
#   interop  scripts/interop.sh: pytest interop/ in a network namespace with only `lo`
#   loadtest scripts/loadtest-smoke.sh: sluice-loadtest, 1 publisher x 5 players, --assert-no-loss;
#            then 1 x 30 on 1 worker, 2 workers and a 2-node cluster, and 10 x 2 plain and
#            recorded (scripts/loadtest-scale.py)
#   leaks    scripts/leaks.sh: interop tests (bad input, hooks, admin, recording, WHIP) against the server
#            under valgrind; any leaked block or memory error fails
# Every stage runs even if an earlier one failed; the script fails if any stage failed.
# The whole run stays within SLUICE_TIME_BUDGET seconds (default 5000, under CI's 90 minutes):
# each stage's limit is cut to what is left, so the summary always gets printed.
# SLUICE_STAGES="unit interop" runs a subset. Logs, screenshots and figures: artifacts/.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
artifacts="$repo/artifacts"
logs="$artifacts/logs"
mkdir -p "$logs"
rm -f "$logs"/*.log  # so the summary never quotes an earlier run
stages="${SLUICE_STAGES:-deps build package layers sdk unit alloc fuzz interop loadtest leaks}"
export FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
budget="${SLUICE_TIME_BUDGET:-5000}"
started=$(date +%s)

names=()
results=()
durations=()

# run_stage NAME SECONDS VISIBLE COMMAND...: VISIBLE=full streams the output, tail shows its end.
run_stage() {
    local name="$1" limit="$2" visible="$3"
    shift 3
    if [[ " $stages " != *" $name "* ]]; then
        return 0
    fi
    local left=$(( budget - ($(date +%s) - started) - 30 ))
    (( limit > left )) && limit=$left
    echo
    if (( limit < 30 )); then
        echo "================ stage $name: FAILED (no time left in the ${budget}s budget) ================"
        names+=("$name"); results+=("FAILED (no time left)"); durations+=(0)
        return 0
    fi
    echo "================ stage $name (limit ${limit}s): $* ================"
    local start rc
    start=$(date +%s)
    if [[ $visible == full ]]; then
        timeout --kill-after=30 "$limit" "$@" 2>&1 | tee "$logs/$name.log"
        rc=${PIPESTATUS[0]}
    else
        timeout --kill-after=30 "$limit" "$@" > "$logs/$name.log" 2>&1
        rc=$?
        if (( rc != 0 )); then tail -n 60 "$logs/$name.log"; else tail -n 5 "$logs/$name.log"; fi
    fi
    local seconds=$(( $(date +%s) - start ))
    local result=passed
    if (( rc == 124 || rc == 137 )); then
        result="FAILED (timed out after ${limit}s)"
    elif (( rc != 0 )); then
        result="FAILED (exit $rc)"
    fi
    echo "================ stage $name: $result in ${seconds}s (log: artifacts/logs/$name.log) ================"
    names+=("$name")
    results+=("$result")
    durations+=("$seconds")
}

run_stage deps 1200 tail scripts/install-deps.sh --test
run_stage build 2400 tail swift build -c release
run_stage package 600 full scripts/check-package.sh
run_stage layers 300 tail bash -c 'scripts/check-layering.sh && scripts/check-sdk-types.sh'
run_stage sdk 900 tail scripts/check-sdk-dependency.sh
run_stage unit 2400 full swift test
# Optimized code is what ships: the zero-allocation forwarding test runs in release (in a
# debug build unspecialized generics allocate, so there it is skipped).
run_stage alloc 1800 full swift test -c release --filter ForwardingAllocationTests
run_stage fuzz 1800 full scripts/fuzz.sh
run_stage interop 1500 full scripts/interop.sh
run_stage loadtest 600 full scripts/loadtest-smoke.sh
run_stage leaks 1200 full scripts/leaks.sh

echo
echo "================ summary ================"
failed=0
for i in "${!names[@]}"; do
    printf '  %-8s %-36s %5ss\n' "${names[$i]}" "${results[$i]}" "${durations[$i]}"
    [[ ${results[$i]} == passed ]] || failed=1
done
if [[ -f "$artifacts/figures.json" ]]; then
    echo "  figures: artifacts/figures.json"
fi
# Leave the test runners' own closing lines last.
if [[ -f "$logs/unit.log" && " $stages " == *" unit "* ]]; then
    grep -E 'Test run with [0-9]+ tests?|Executed [1-9][0-9]* tests?' "$logs/unit.log" | tail -n 2 || true
fi
if [[ -f "$logs/interop.log" && " $stages " == *" interop "* ]]; then
    grep -E '^=+ .*(passed|failed|error|no tests ran).* in [0-9.]+s' "$logs/interop.log" | tail -n 1 || true
fi
exit $failed
