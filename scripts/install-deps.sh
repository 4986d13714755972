#!/usr/bin/env bash
# Installs what Sluice needs on Debian 12 (run as root). Idempotent: a second run does no work.
#   scripts/install-deps.sh          build and run dependencies (C libraries)
#   scripts/install-deps.sh --test   also the test peers: chromium, coturn, iproute2, nftables,
#                                    valgrind, redis-server (the cluster tests start their own),
#                                    postgresql (the call-log tests start their own), tsc,
#                                    prometheus (interop/test_prometheus.py starts its own),
#                                    and a Python venv at .venv/ with aiortc, playwright, pytest...
# Playwright's own browser download is never used (no network for it): the tests drive
# Debian's /usr/bin/chromium through executable_path.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
with_test=0
for arg in "$@"; do
    case "$arg" in
        --test) with_test=1 ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) echo "install-deps: unknown argument $arg" >&2; exit 2 ;;
    esac
done

packages=(libssl-dev libsrtp2-dev libusrsctp-dev libjansson-dev libwebsockets-dev pkg-config)
# hiredis: the cluster registry's Redis client (SluiceCluster links it, so the server does).
packages+=(libhiredis-dev)
# libavformat: the recorder's muxer (WebM, MP4); SluiceRecord links it, so the server does.
packages+=(libavformat-dev)
# SQLite: the call log (SluiceCallLog links it, so the server does).
packages+=(libsqlite3-dev)
# libpq: the call log in PostgreSQL, shared by a cluster (SluiceCallLog links it too).
packages+=(libpq-dev)
# jemalloc: the server executable's allocator (docs/design.md, "Memory under churn").
packages+=(libjemalloc-dev)
# scripts/package.sh: dpkg-shlibdeps (dpkg-dev) derives the .deb's Depends; strip (binutils).
packages+=(dpkg-dev binutils)
if [[ $with_test == 1 ]]; then
    # coturn: the TURN interop test starts its own turnserver on loopback.
    packages+=(chromium coturn iproute2 nftables valgrind util-linux curl)
    # redis-server: Tests/SluiceClusterTests start their own on 127.0.0.1 (a free port, no disk).
    packages+=(redis-server)
    # postgresql: Tests/SluiceCallLogTests start their own (initdb in a temp folder, as a
    # non-root user, on 127.0.0.1 and a free port).
    packages+=(postgresql)
    # prometheus (with promtool): interop/test_prometheus.py checks deploy/prometheus/ with
    # promtool and runs its own prometheus on loopback against a test server.
    packages+=(prometheus)
    # ffmpeg/ffprobe and mkvtoolnix (mkvinfo) check every recording the tests make.
    packages+=(ffmpeg mkvtoolnix)
    # node-typescript (Debian's tsc; it brings nodejs): scripts/check-sdk-types.sh checks the
    # browser SDK's declarations, web/sdk/sluice.d.ts.
    packages+=(node-typescript)
    # scripts/check-package.sh: lintian checks the .deb, systemd's systemd-analyze its unit
    # (installed only as a tool: nothing here boots with it).
    packages+=(lintian systemd)
    # Debian's python3 needs python3-venv for `python3 -m venv`; pyenv's Python has it built in.
    if ! command -v python3 >/dev/null; then
        packages+=(python3 python3-venv)
    elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        packages+=(python3-venv)
    fi
fi

missing=()
for p in "${packages[@]}"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]]; then
        missing+=("$p")
    fi
done
if (( ${#missing[@]} > 0 )); then
    echo "install-deps: apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${missing[@]}"
    # Debian enables and starts coturn's systemd unit on install (/etc/default/coturn only
    # gates the old init script), which would leave a TURN server on every interface with the
    # stock config. The tests run their own; stop and disable the service we just brought in.
    if [[ " ${missing[*]} " == *" coturn "* ]] && [[ -d /run/systemd/system ]]; then
        echo "install-deps: disabling the coturn service (the tests start their own turnserver)"
        systemctl disable --now coturn.service || true
    fi
    # The same for Redis: Debian starts redis-server on 127.0.0.1:6379; the tests run their own.
    if [[ " ${missing[*]} " == *" redis-server "* ]] && [[ -d /run/systemd/system ]]; then
        echo "install-deps: disabling the redis-server service (the tests start their own)"
        systemctl disable --now redis-server.service || true
    fi
    # And for PostgreSQL: Debian creates and starts a cluster on port 5432; the tests run their own.
    if [[ " ${missing[*]} " == *" postgresql "* ]] && [[ -d /run/systemd/system ]]; then
        echo "install-deps: disabling the postgresql service (the tests start their own)"
        systemctl disable --now postgresql.service || true
        systemctl stop "postgresql@*.service" || true
    fi
    # And for Prometheus: Debian starts it on :9090 scraping localhost; the test runs its own.
    if [[ " ${missing[*]} " == *" prometheus "* ]] && [[ -d /run/systemd/system ]]; then
        echo "install-deps: disabling the prometheus service (the test starts its own)"
        systemctl disable --now prometheus.service || true
    fi
else
    echo "install-deps: Debian packages already installed"
fi

[[ $with_test == 1 ]] || exit 0

venv="$repo/.venv"
requirements="$repo/interop/requirements.txt"
# The stamp names the interpreter and the requirements, so a change to either reinstalls.
want="$(python3 -c 'import sys; print(sys.version)' | head -1) $(sha256sum "$requirements" | cut -d' ' -f1)"
stamp="$venv/.sluice-deps-stamp"
if [[ -x "$venv/bin/python" ]] && [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$want" ]] \
    && "$venv/bin/python" -c 'import aiortc, playwright, websockets, pytest, pytest_timeout, numpy, av' 2>/dev/null; then
    echo "install-deps: .venv already up to date"
    exit 0
fi

if ! [[ -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
    rm -rf "$venv"
    echo "install-deps: creating $venv with $(command -v python3)"
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --disable-pip-version-check -q --upgrade pip
"$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$requirements"
"$venv/bin/python" -c 'import aiortc, playwright, websockets, pytest, pytest_timeout, numpy, av'
echo "$want" > "$stamp"
echo "install-deps: .venv ready ($("$venv/bin/python" -m pip freeze | grep -iE '^(aiortc|playwright|av|websockets|pytest)==' | tr '\n' ' '))"
