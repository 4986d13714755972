#!/usr/bin/env bash
# Runs interop tests against a server under valgrind and fails on any leaked block or memory
# error in the server (non-negotiable: bad input never leaks). Needs .venv and valgrind
# (scripts/install-deps.sh --test).
#   scripts/leaks.sh                 the default subset below
#   scripts/leaks.sh -k test_hooks   any pytest selection instead
# The server is a release build with DWARF 4 debug info (valgrind reads no DWARF 5), in
# .build-dwarf4/. Only tests that do not depend on the server's speed are in the default
# subset: under valgrind it runs about 20 times slower, so ICE-timeout and Chromium tests
# would fail for that reason alone. Reports: artifacts/leaks/valgrind-<pid>.log.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
command -v valgrind >/dev/null || { echo "leaks: valgrind is missing (scripts/install-deps.sh --test)"; exit 1; }

echo "leaks: building the server with DWARF 4 debug info (.build-dwarf4)"
if ! swift build -c release --scratch-path .build-dwarf4 -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 \
        > /tmp/sluice-leaks-build.log 2>&1; then
    tail -n 40 /tmp/sluice-leaks-build.log
    echo "leaks: build failed"
    exit 1
fi

out="$repo/artifacts/leaks"
rm -rf "$out"
mkdir -p "$out"
wrapper="$out/sluice-under-valgrind"
# The server links jemalloc (docs/design.md, "Memory under churn"). valgrind must replace
# jemalloc's malloc, not only libc's, or it sees no block and reports no leak; the synonym
# says so. A planted leak (777 bytes, in a build of the server linked with jemalloc) was
# reported with and without it on Debian 12's valgrind 3.19; it stays for other versions.
cat > "$wrapper" <<EOF
#!/usr/bin/env bash
exec valgrind '--soname-synonyms=somalloc=*jemalloc*' --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite \\
    --num-callers=30 --log-file="$out/valgrind-%p.log" "$repo/.build-dwarf4/release/sluice" "\$@"
EOF
chmod +x "$wrapper"

selection=("$@")
if (( ${#selection[@]} == 0 )); then
    # test_hooks and test_whip_publish also select their https variants in test_tls.py;
    # test_recording_admin runs the recorder thread and libavformat (its other recording
    # tests compare a file's duration with the wall clock, which valgrind's pace stretches).
    selection=(-k "test_bad_input or test_name_in_use or test_unpublished_on_stop or test_hooks or test_admin or test_whip_errors or test_whip_publish or test_whep or test_sighup or test_each_bad_token or test_whip_and_whep_take_tokens or test_recording_admin or test_garbage_and_init_flood_inside_dtls or test_message_over_the_limit or test_precall_http_errors or test_bad_call_input or test_every_end_before_an_answer")
fi
SLUICE_BINARY="$wrapper" SLUICE_ARTIFACTS="$out" scripts/interop.sh "${selection[@]}"
rc=$?

logs=("$out"/valgrind-*.log)
if [[ ! -e "${logs[0]}" ]]; then
    echo "leaks: valgrind wrote no report: no server ran"
    exit 1
fi
bad=0
for log in "${logs[@]}"; do
    lost=$(grep -oE 'definitely lost: [0-9,]+ bytes' "$log" | grep -oE '[0-9,]+' | tr -d , | head -1)
    indirect=$(grep -oE 'indirectly lost: [0-9,]+ bytes' "$log" | grep -oE '[0-9,]+' | tr -d , | head -1)
    errors=$(grep -oE 'ERROR SUMMARY: [0-9,]+ errors' "$log" | grep -oE '[0-9,]+' | tr -d , | head -1)
    if [[ -z "$errors" ]]; then
        echo "leaks: $(basename "$log"): no summary (the server did not exit cleanly)"
        bad=1
    elif (( ${lost:-0} > 0 || ${indirect:-0} > 0 || errors > 0 )); then
        echo "leaks: $(basename "$log"): ${lost:-0} bytes definitely lost, ${indirect:-0} indirectly, $errors errors"
        grep -E -A30 'definitely lost in loss record|Invalid (read|write)|uninitialised|Mismatched free' "$log" | head -80
        bad=1
    fi
done
echo "leaks: ${#logs[@]} server run(s) under valgrind; pytest exit $rc"
if (( bad != 0 )); then echo "leaks: FAILED"; exit 1; fi
if (( rc != 0 )); then echo "leaks: interop tests failed under valgrind"; exit "$rc"; fi
echo "leaks: no leak and no memory error"
