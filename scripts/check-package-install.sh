#!/usr/bin/env bash
# The .deb's maintainer scripts, for real but without touching this host: dpkg runs in a chroot
# onto an overlay of / whose writes go to a tmpfs, in a private mount namespace, so the
# installed files, the sluice user and everything purge removes vanish with the namespace.
#   scripts/check-package-install.sh sluice_<version>_amd64.deb
# Installs it, installs it again (postinst must be idempotent), starts the installed
# /usr/bin/sluice as the sluice user with /etc/sluice/sluice.json exactly as packaged (in a
# network namespace with only lo) until /health and the web root answer, removes it (the
# conffile stays) and purges it (/etc/sluice and /var/lib/sluice go; the user stays).
# Called by scripts/check-package.sh; needs root and overlayfs. No systemd is PID 1 here, so
# the scripts' systemctl branches are not taken.
set -euo pipefail
deb="$(realpath "$1")"
[[ $(id -u) == 0 ]] || { echo "check-package-install: needs root"; exit 1; }

exec unshare -m --propagation private bash -s "$deb" <<'INSIDE'
set -euo pipefail
deb="$1"
top="$(mktemp -d /tmp/sluice-check-install.XXXXXX)"
# Unmount before removing, and only rmdir: an rm -r here would reach the real /dev through the
# chroot's bind mount.
trap 'umount -R "$top" 2>/dev/null || true; rmdir "$top"' EXIT
mount -t tmpfs tmpfs "$top"
mkdir -p "$top/upper" "$top/work" "$top/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$top/upper,workdir=$top/work" "$top/root"
for fs in proc sys dev; do mount --rbind "/$fs" "$top/root/$fs"; done
cp "$deb" "$top/root/tmp/sluice.deb"

chroot "$top/root" /bin/bash -euo pipefail -s <<'CHROOT'
say() { echo "check-package-install: $*"; }
export DEBIAN_FRONTEND=noninteractive
dpkg -i /tmp/sluice.deb >/dev/null
dpkg -i /tmp/sluice.deb >/dev/null
getent passwd sluice | grep -q ':/var/lib/sluice:' || { say "FAILED: no system user sluice"; exit 1; }
[[ $(stat -c '%U:%G %a' /var/lib/sluice) == "sluice:sluice 750" ]] || { say "FAILED: /var/lib/sluice is $(stat -c '%U:%G %a' /var/lib/sluice)"; exit 1; }
[[ $(stat -c '%U:%G %a' /etc/sluice/sluice.json) == "root:sluice 640" ]] || { say "FAILED: the config is $(stat -c '%U:%G %a' /etc/sluice/sluice.json)"; exit 1; }
say "installed twice: user sluice, /var/lib/sluice sluice:sluice 750, /etc/sluice/sluice.json root:sluice 640"

# The installed server as sluice.service would run it (User=, NoNewPrivileges=, no capabilities,
# WorkingDirectory=), with the config as packaged: the ports are free in a fresh namespace.
unshare -n bash -euo pipefail -c '
ip link set lo up
cd /var/lib/sluice
setpriv --reuid=sluice --regid=sluice --clear-groups --no-new-privs --bounding-set=-all -- \
    /usr/bin/sluice --config /etc/sluice/sluice.json > /tmp/sluice.log 2>&1 &
pid=$!
for _ in $(seq 300); do curl -fs -o /dev/null http://127.0.0.1:8080/health && break; sleep 0.05; done
ok=1
curl -fs http://127.0.0.1:8080/health | grep -q "\"ok\"" || { echo "check-package-install: FAILED: /health"; ok=0; }
curl -fs http://127.0.0.1:8080/ | grep -qi "<html" || { echo "check-package-install: FAILED: the web root"; ok=0; }
[[ $(stat -c %U /var/lib/sluice/calls.db /var/lib/sluice/recordings | sort -u) == sluice ]] ||
    { echo "check-package-install: FAILED: no call log or recording folder of sluice"; ok=0; }
kill -TERM "$pid"; wait "$pid" || { echo "check-package-install: FAILED: exit $? on SIGTERM"; ok=0; }
(( ok )) || { cat /tmp/sluice.log; exit 1; }
echo "check-package-install: the installed server ran as sluice with the packaged config; exit 0 on SIGTERM"
'

dpkg -r sluice >/dev/null
[[ -f /etc/sluice/sluice.json && ! -e /usr/bin/sluice ]] || { say "FAILED: remove"; exit 1; }
dpkg -P sluice >/dev/null
[[ ! -e /etc/sluice && ! -e /var/lib/sluice ]] || { say "FAILED: purge left $(ls -d /etc/sluice /var/lib/sluice 2>/dev/null)"; exit 1; }
getent passwd sluice >/dev/null || { say "FAILED: purge removed the user"; exit 1; }
say "removed (conffile kept), purged (/etc/sluice, /var/lib/sluice gone; user sluice kept)"
CHROOT
INSIDE
