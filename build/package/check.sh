#!/usr/bin/env bash
# The package test (make package-check; root; not part of make test):
#
#  1. offline: a fresh minimal Debian 12 root (the cached mmdebstrap minbase
#     root of offline.sh), entered with no network at all (unshare -n),
#     installs the offline bundle with its install.sh, then runs
#     rehome doctor, hw, sandbox image status and a sandbox run (rootful
#     Podman in the chroot, /proc /sys /dev mounted), which loads the shipped
#     image on first use after checking its sum;
#  2. upgrade and removal: in that root, with data written by an older
#     rehome package (the same build repacked as version 0.0.1), the new
#     package is installed over it and the data is still there; removing
#     rehome keeps it too;
#  3. the .deb alone: another fresh root installs rehome_*.deb with apt from
#     the Debian mirror (the double-click path: the distribution's installer
#     fetches the dependencies), and the menu entry, MIME types, icons and
#     manual page are where desktops look.
#
# Prints each step's time and the artifacts' sizes, and writes them to
# build/dist/package-check.txt. Exits non-zero on the first failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dist=${1:-$root/build/dist}
cache=${REHOME_BUNDLE_CACHE:-/var/cache/rehome/bundle}
base=$cache/bookworm-minbase.tar
[ "$(id -u)" = 0 ] || { echo "check.sh: needs root (chroot, mounts, unshare)" >&2; exit 1; }
version=$("$here/version.sh")
deb=$dist/rehome_${version}_amd64.deb
img=$(ls "$dist"/rehome-sandbox-image_*_amd64.deb | head -n1)
bundle=$dist/rehome-offline-$version-amd64.tar
for f in "$deb" "$img" "$bundle" "$base"; do
  [ -s "$f" ] || { echo "check.sh: $f is missing: run \`make package\` first" >&2; exit 1; }
done
report=$dist/package-check.txt
: > "$report"
log() { printf '%s\n' "$*" | tee -a "$report"; }
fail() { log "FAIL: $*"; exit 1; }
roots=()
cleanup() {
  for d in "${roots[@]}"; do
    # Every mount under the root, deepest first (Podman's storage too), then
    # the root's own bind mount.
    awk -v d="$d" 'index($2, d) == 1 {print length($2), $2}' /proc/mounts | sort -rn | cut -d' ' -f2- |
      while read -r m; do umount -l "$m" 2>/dev/null || true; done
    if grep -q " $d" /proc/mounts; then echo "check.sh: mounts left under $d" >&2; continue; fi
    rm -rf --one-file-system "$d"
  done
}
trap cleanup EXIT

# new_root: a fresh minimal Debian 12 root with /proc, /sys, /dev, in
# $ROOT (not printed: a $(…) subshell would lose it from roots, and the
# cleanup would leave its mounts behind).
new_root() {
  local d
  d=$(mktemp -d /var/tmp/rehome-pkgcheck.XXXXXX)
  roots+=("$d")
  ROOT=$d
  tar -C "$d" -xf "$base"
  # containers/storage remounts / when it unpacks an image layer: the
  # root must be a mount point of its own.
  mount --bind "$d" "$d"
  mount -t proc proc "$d/proc"
  mount --rbind /sys "$d/sys" && mount --make-rslave "$d/sys"
  mount --rbind /dev "$d/dev" && mount --make-rslave "$d/dev"
  mount -t tmpfs -o mode=0755 tmpfs "$d/run"
}
# offline ROOT CMD...: run in the root with no network: a network namespace
# of its own with only the loopback interface, up (an air-gapped machine
# has one: rehome reaches the llama-server it starts at 127.0.0.1, and with
# lo down it waited for it ten minutes). The root is entered with pivot_root in a mount namespace of its own, not
# chroot: the kernel refuses a user namespace to a chrooted process
# (unshare(2): EPERM, "the caller is in a chroot environment"), and the
# sandbox's container runs in one (runc: "can't get final child's PID from
# pipe: EOF" under chroot).
offline() {
  local d=$1; shift
  unshare -n -m --propagation private /bin/sh -c 'ip link set lo up && cd "$1" && mkdir -p .oldroot && pivot_root . .oldroot && cd / && umount -l /.oldroot && shift &&
    exec /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"' sh "$d" "$@"
}
secs() { echo $(( $(date +%s) - $1 )); }
size() { du -h "$1" | cut -f1; }

log "rehome package check, $(date -u +%FT%TZ), version $version"
log "sizes: $(basename "$deb") $(size "$deb"); $(basename "$img") $(size "$img"); $(basename "$bundle") $(size "$bundle") ($(tar -tf "$bundle" | grep -c '\.deb$') packages)"

# 1. The offline bundle, with no network.
t=$(date +%s)
new_root
r1=$ROOT
tar -C "$r1/root" -xf "$bundle"
dir=$(basename "$bundle" .tar)
# No network in there: the mirror this machine reaches (by address, so
# DNS is not what fails) is unreachable from the chroot.
ip=$(getent ahostsv4 deb.debian.org | awk 'NR==1 {print $1}')
if [ -n "$ip" ] && timeout 10 bash -c "exec 3<>/dev/tcp/$ip/80" 2>/dev/null; then
  if offline "$r1" timeout 10 bash -c "exec 3<>/dev/tcp/$ip/80" 2>/dev/null; then fail "the chroot reaches $ip"; fi
  log "no network in the root: $ip:80 reachable from here, not from there"
else
  log "no network in the root: (this machine reaches no mirror either; unshare -n holds all the same)"
fi
t1=$(date +%s)
cp "$bundle" "$r1/root/"
sum=$(sha256sum < "$bundle" | cut -d' ' -f1)
offline "$r1" "/root/$dir/install.sh" --sha256 "$sum" > "$dist/package-check-install.log" 2>&1 || { tail -n 30 "$dist/package-check-install.log"; fail "install.sh in a fresh root with no network"; }
log "offline install: $(secs "$t1") s (install.sh, no network; log in package-check-install.log), $(grep -c '^Setting up' "$dist/package-check-install.log") packages set up"
offline "$r1" rehome version | tee -a "$report"
offline "$r1" rehome doctor > "$dist/package-check-doctor.txt" 2>&1 || true
cat "$dist/package-check-doctor.txt" | tee -a "$report"
grep -q '^fail' "$dist/package-check-doctor.txt" && fail "rehome doctor reports a failure"
offline "$r1" rehome hw > /dev/null || fail "rehome hw"
log "rehome hw: ok"
# The command links no GTK; the window binary it starts finds every library
# it links (the offline bundle carries GTK and WebKitGTK for it).
offline "$r1" ldd /usr/bin/rehome | grep -q 'libgtk\|libwebkit' && fail "/usr/bin/rehome links GTK or WebKitGTK"
offline "$r1" ldd /usr/lib/rehome/rehome-window > "$dist/package-check-ldd.txt" 2>&1 || fail "ldd /usr/lib/rehome/rehome-window"
grep -q 'not found' "$dist/package-check-ldd.txt" && fail "the window binary lacks libraries: $(grep 'not found' "$dist/package-check-ldd.txt" | tr '\n' ' ')"
offline "$r1" /usr/lib/rehome/rehome-window version | grep -q "$version" || fail "rehome-window version"
log "libraries: /usr/bin/rehome $(offline "$r1" ldd /usr/bin/rehome | wc -l), /usr/lib/rehome/rehome-window $(wc -l < "$dist/package-check-ldd.txt"), none missing"
offline "$r1" rehome sandbox image status | tee -a "$report" || true
printf 'region,sales\nnorth,3\nsouth,4\n' > "$r1/root/sales.csv"
printf 'import pandas as pd\ndf = pd.read_csv("/mnt/data/sales.csv")\nprint("total", df.sales.sum())\n' > "$r1/root/sum.py"
t2=$(date +%s)
if offline "$r1" rehome run --file /root/sales.csv /root/sum.py > "$dist/package-check-run.txt" 2>&1; then
  grep -q '^total 7$' "$dist/package-check-run.txt" || fail "the sandbox run printed: $(cat "$dist/package-check-run.txt")"
  log "first sandbox run (loads the shipped image after checking its sum): $(secs "$t2") s"
  grep '^rehome:' "$dist/package-check-run.txt" | tee -a "$report" || true
  t3=$(date +%s)
  offline "$r1" rehome run --file /root/sales.csv /root/sum.py | grep -q '^total 7$' || fail "second sandbox run"
  log "second sandbox run: $(secs "$t3") s"
  # The one more file an air-gapped user carries: a GGUF model (here the
  # tests' tiny one, made on this machine), run by the llama-server the
  # package ships. rehome ask answers with no model server and no network.
  (cd "$root" && go run ./internal/testsupport/tinymodel/cmd/tinymodel -o "$r1/root/tiny.gguf" -csv sales.csv -group region -value sales >/dev/null) || fail "make the tiny model"
  offline "$r1" rehome models add /root/tiny.gguf >> "$report" || fail "rehome models add"
  t4=$(date +%s)
  offline "$r1" rehome ask --model tiny --file /root/sales.csv "Which region sold most?" > "$dist/package-check-ask.txt" 2>&1 || { cat "$dist/package-check-ask.txt"; fail "rehome ask with the carried model"; }
  grep -q "rehome: cell 1: exit 0" "$dist/package-check-ask.txt" || fail "rehome ask: the cell did not run: $(cat "$dist/package-check-ask.txt")"
  log "rehome ask with the carried model, offline: $(secs "$t4") s ($(grep -o 'tiny is ready ([0-9.]* s)' "$dist/package-check-ask.txt"))"
else
  log "sandbox run in the root: NOT POSSIBLE here: $(tail -n 3 "$dist/package-check-run.txt" | tr '\n' ' ')"
  log "NOT PROVEN: rehome ask with the carried model, offline (it needs the sandbox run)"
  [ -n "${REHOME_REQUIRE_SANDBOX_RUN:-}" ] && fail "sandbox run"
fi

# 2. Upgrade over an older package, and removal: the data stays.
t=$(date +%s)
old=$(mktemp -d)
dpkg-deb -R "$deb" "$old/pkg"
sed -i 's/^Version: .*/Version: 0.0.1/' "$old/pkg/DEBIAN/control"
dpkg-deb --root-owner-group -Zgzip --build "$old/pkg" "$r1/root/rehome_0.0.1_amd64.deb" >/dev/null
rm -rf "$old"
offline "$r1" dpkg -i /root/rehome_0.0.1_amd64.deb > /dev/null 2>&1 || fail "downgrade to the older package"
offline "$r1" rehome assistants add --name "Kept across upgrades" --description "written by 0.0.1" > /dev/null || fail "write data with the old package"
offline "$r1" dpkg -i "/root/$dir/debs/$(basename "$deb")" > /dev/null 2>&1 || fail "upgrade to $version"
offline "$r1" dpkg-query -W -f='${Version}\n' rehome | grep -qx "$version" || fail "the upgrade did not install $version"
offline "$r1" rehome assistants list | grep -q "Kept across upgrades" || fail "the data written before the upgrade is gone"
offline "$r1" rehome doctor | grep '^ok *database' | tee -a "$report"
offline "$r1" apt-get -q -y remove rehome > /dev/null 2>&1 || fail "apt-get remove rehome"
[ ! -e "$r1/usr/bin/rehome" ] && [ ! -e "$r1/usr/lib/rehome/rehome-window" ] || fail "rehome still installed after removal"
[ -s "$r1/root/.local/share/rehome/rehome.db" ] || fail "removing rehome removed the user's database"
offline "$r1" apt-get -q -y purge rehome > /dev/null 2>&1 || fail "apt-get purge rehome"
[ -s "$r1/root/.local/share/rehome/rehome.db" ] || fail "purging rehome removed the user's database"
log "upgrade 0.0.1 -> $version keeps the data; remove and purge keep ~/.local/share/rehome: $(secs "$t") s"

# 3. The .deb alone, with apt and the Debian mirror (the double-click path).
if [ -z "${REHOME_CHECK_OFFLINE_ONLY:-}" ]; then
  t=$(date +%s)
  new_root
  r2=$ROOT
  cp "$deb" "$r2/root/"
  cp /etc/resolv.conf "$r2/etc/resolv.conf"
  chroot "$r2" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c "apt-get -q update && apt-get -q -y install /root/$(basename "$deb")" > "$dist/package-check-apt.log" 2>&1 ||
    { tail -n 20 "$dist/package-check-apt.log"; fail "apt-get install ./$(basename "$deb") in a fresh root"; }
  log "the .deb alone with apt (deps from the mirror): $(secs "$t") s, $(grep -c '^Setting up' "$dist/package-check-apt.log") packages set up"
  for f in usr/bin/rehome usr/lib/rehome/rehome-window usr/share/applications/rehome.desktop usr/share/mime/packages/rehome.xml \
    usr/share/icons/hicolor/48x48/apps/rehome.png usr/share/icons/hicolor/512x512/apps/rehome.png \
    usr/share/man/man1/rehome.1.gz usr/share/bash-completion/completions/rehome usr/share/doc/rehome/copyright; do
    [ -e "$r2/$f" ] || fail "/$f is missing after apt installed the .deb"
  done
  offline "$r2" rehome version | grep -q "$version" || fail "rehome version in the apt root"
  offline "$r2" rehome doctor > /dev/null 2>&1 || true
  if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$r2/usr/share/applications/rehome.desktop" && log "desktop-file-validate: ok"
  fi
  log "the .deb alone: files in place, rehome runs"
fi
log "PASS"
