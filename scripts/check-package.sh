#!/usr/bin/env bash
# The test of the Debian package (scripts/test.sh's `package` stage). Builds it
# (scripts/package.sh), extracts it into a temporary root and checks, failing on any of them:
#   - the extracted binary's libraries all resolve from Debian's paths: none from the Swift
#     toolchain (/opt/swift), none "not found"; Depends names exactly the packages that ship them;
#   - its --version is the package's version;
#   - lintian reports no error (E:);
#   - systemd-analyze verify accepts the unit, without a word of warning;
#   - installed, reinstalled, removed and purged by dpkg in an overlay of / (the host untouched),
#     the installed server runs as sluice with the config as packaged
#     (scripts/check-package-install.sh);
#   - the extracted server, with the packaged config, carries an aiortc publisher to a player
#     (interop/test_package.py through scripts/interop.sh: a network namespace with only lo).
# Prints the .deb's size, the static build's time, the server's start time and lintian's tags;
# none of the timings can fail it. Needs root, lintian and .venv (scripts/install-deps.sh --test).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="$repo/artifacts/package"
mkdir -p "$out"
command -v lintian >/dev/null || { echo "check-package: lintian is missing: run scripts/install-deps.sh --test"; exit 1; }

scripts/package.sh "$out" 2>&1 | tee "$out/package.log"
version="$(scripts/sluice-version.sh)"
deb="$out/sluice_${version}_amd64.deb"
[[ -f $deb ]] || { echo "check-package: FAILED: $deb was not built"; exit 1; }

# The temporary root is traversable by nobody, whom the server runs as in the interop test.
tmp="$(mktemp -d /tmp/sluice-check-package.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
root="$tmp/root"
dpkg-deb -x "$deb" "$root"
binary="$root/usr/bin/sluice"
failed=0
fail() { echo "check-package: FAILED: $*"; failed=1; }

echo "check-package: the binary's libraries (ldd)"
# Without LD_LIBRARY_PATH, as systemd starts it: only the loader's own search path counts.
env -u LD_LIBRARY_PATH ldd "$binary" > "$tmp/ldd.txt" 2>&1 || true
if grep -q "not found" "$tmp/ldd.txt"; then fail "libraries not found: $(grep 'not found' "$tmp/ldd.txt" | tr -s ' \t' ' ')"; fi
if grep -q "/opt/swift" "$tmp/ldd.txt"; then fail "libraries from the Swift toolchain: $(grep /opt/swift "$tmp/ldd.txt" | tr -s ' \t' ' ')"; fi
# Anything resolved elsewhere than Debian's multiarch library folders (or the loader itself).
elsewhere="$(awk '$2 == "=>" && $3 ~ /^\// {print $3}' "$tmp/ldd.txt" |
    grep -Ev '^(/usr)?/lib/x86_64-linux-gnu/|^(/usr)?/lib64/' || true)"
[[ -z $elsewhere ]] || fail "libraries outside Debian's paths: $elsewhere"
echo "check-package: $(objdump -p "$binary" | grep -c NEEDED) libraries linked, $(grep -c "=>" "$tmp/ldd.txt") loaded with theirs, all from Debian's paths"

# Depends against the binary's NEEDED entries, mapped to packages by dpkg -S: the same set,
# no more, no less (adduser is for postinst, not a library).
needed_packages=()
for soname in $(objdump -p "$binary" | awk '$1 == "NEEDED" {print $2}'); do
    path="$(awk -v so="$soname" '$1 == so && $2 == "=>" {print $3}' "$tmp/ldd.txt")"
    [[ -n $path ]] || path="$(awk -v so="$soname" 'index($1, so) {print $1}' "$tmp/ldd.txt")"
    # usrmerge: dpkg knows a file under the path its package shipped, /lib or /usr/lib.
    owner="$(dpkg -S "$path" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null || dpkg -S "${path#/usr}" 2>/dev/null || true)"
    [[ -n $owner ]] || { fail "no package ships $soname ($path)"; continue; }
    needed_packages+=("${owner%%:*}")
done
want="$(printf '%s\n' "${needed_packages[@]}" | sort -u)"
have="$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep -vx adduser | sort -u)"
if [[ $want == "$have" ]]; then
    echo "check-package: Depends names exactly the $(wc -l <<< "$have") packages of the linked libraries"
else
    fail "Depends and the linked libraries differ (< linked, > Depends):"; diff <(echo "$want") <(echo "$have") || true
fi

printed="$("$binary" --version)"
[[ $printed == "sluice $(dpkg-deb -f "$deb" Version)" ]] || fail "--version says '$printed', the package $(dpkg-deb -f "$deb" Version)"

echo "check-package: lintian"
lintian --display-info --pedantic "$deb" > "$tmp/lintian.txt" 2>&1 || true
grep -v 'running with root privileges' "$tmp/lintian.txt" || true
if grep -q '^E: ' "$tmp/lintian.txt"; then fail "lintian reports errors"; fi
lintian_summary="$(for level in E W I P; do printf '%s %s  ' "$level:" "$(grep -c "^$level: " "$tmp/lintian.txt" || true)"; done)"

# systemd-analyze verify checks that ExecStart's binary exists on this host, and the unit
# names /usr/bin/sluice, which is not installed here (nor is systemd PID 1 in a container).
# So it verifies a copy of the packaged unit with only ExecStart pointed at the extracted
# binary; MANPATH lets it find Documentation=man:sluice(1) in the extracted tree. verify exits
# 0 on an unknown key (a typo in a hardening option), so any output at all fails the check.
echo "check-package: systemd-analyze verify"
mkdir -p "$tmp/unit"
sed "s|^ExecStart=/usr/bin/sluice |ExecStart=$binary |" "$root/lib/systemd/system/sluice.service" > "$tmp/unit/sluice.service"
grep -q "^ExecStart=$binary " "$tmp/unit/sluice.service" || fail "the unit has no ExecStart=/usr/bin/sluice"
if ! verify="$(MANPATH="$root/usr/share/man" systemd-analyze verify "$tmp/unit/sluice.service" 2>&1)" || [[ -n $verify ]]; then
    fail "systemd-analyze verify: $verify"
fi
exposure="$(systemd-analyze security --offline=yes "$tmp/unit/sluice.service" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: //p')"

echo "check-package: dpkg -i, -r, -P in an overlay of / (scripts/check-package-install.sh)"
scripts/check-package-install.sh "$deb" || fail "installing, running, removing or purging the package"

# The packaged config as the server will read it, with only what a temporary root forces
# changed: /var/lib/sluice (recordings, call log) and the web root under /usr/share/sluice
# point into $tmp. Ports and addresses stay: the interop namespace has them all free.
state="$tmp/state"
install -d -o nobody -g nogroup -m 0750 "$state"
sed -e "s|\"/var/lib/sluice/|\"$state/|g" -e "s|\"/usr/share/sluice/|\"$root/usr/share/sluice/|g" \
    "$root/etc/sluice/sluice.json" > "$tmp/sluice.json"
chgrp nogroup "$tmp/sluice.json" && chmod 0640 "$tmp/sluice.json"  # as postinst leaves it
echo "check-package: the packaged config, paths moved into the temporary root:"
diff "$root/etc/sluice/sluice.json" "$tmp/sluice.json" || true

echo "check-package: the packaged server carries a publisher to a player (interop/test_package.py)"
SLUICE_BINARY="$binary" SLUICE_PACKAGE_CONFIG="$tmp/sluice.json" SLUICE_PACKAGE_STATE="$state" \
    scripts/interop.sh -k test_packaged_server || fail "interop/test_package.py"

size=$(stat -c %s "$deb")
build_line="$(grep -o 'static build in [0-9]*s' "$out/package.log" || echo 'static build time unknown')"
start="$(python3 -c 'import json, sys; f = json.load(open(sys.argv[1])).get("test_packaged_server", {}); print(f.get("startMedianMs", "?"), "ms median of", f.get("startMs", "?"))' \
    "$repo/artifacts/figures.json" 2>/dev/null || echo '?')"
echo
echo "check-package: figures"
echo "  package      $(basename "$deb"): $size bytes ($(awk -v s="$size" 'BEGIN {printf "%.1f", s / 1048576}') MiB), installed $(dpkg-deb -f "$deb" Installed-Size) KiB"
echo "  build        $build_line"
echo "  start        exec to /health 200: $start"
echo "  lintian      $lintian_summary"
echo "  unit         systemd-analyze security --offline exposure: ${exposure:-?}"
if (( failed )); then echo "check-package: FAILED"; exit 1; fi
echo "check-package: passed"
