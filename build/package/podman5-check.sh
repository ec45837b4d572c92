#!/usr/bin/env bash
# Checks rehome's Podman v4 bindings against a Podman 5 service: a Debian 13
# ("trixie") root made with mmdebstrap (cached in $REHOME_BUNDLE_CACHE, default
# /var/cache/rehome/bundle), its `podman system service` started inside the
# root on a unix socket, and build/bin/rehome on this machine pointed at it
# with CONTAINER_HOST: image load, status, a run, the self-test, doctor.
# Root; needs the Debian mirror the first time; a few minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$root/build/bin/rehome
cache=${REHOME_BUNDLE_CACHE:-/var/cache/rehome/bundle}
mirror=${REHOME_DEBIAN_MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" = 0 ] || { echo "podman5-check.sh: needs root" >&2; exit 1; }
mkdir -p "$cache"
tarball=$cache/trixie-podman.tar
if [ ! -s "$tarball" ]; then
  mmdebstrap --quiet --variant=minbase --include=podman,runc,conmon,catatonit,ca-certificates \
    trixie "$cache/.part-trixie.tar" "deb $mirror trixie main"
  mv "$cache/.part-trixie.tar" "$tarball"
fi
R=$(mktemp -d /var/tmp/rehome-podman5.XXXXXX)
home=$(mktemp -d /tmp/rehome-podman5-home.XXXXXX)
svc=
cleanup() {
  [ -n "$svc" ] && kill "$svc" 2>/dev/null && sleep 2
  umount -R "$R/tmp" "$R/run" "$R/dev" "$R/sys" "$R/proc" 2>/dev/null || true
  grep " $R/" /proc/mounts | cut -d' ' -f2 | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  umount "$R" 2>/dev/null || true
  rm -rf --one-file-system "$R" "$home"
}
trap cleanup EXIT
tar -C "$R" -xf "$tarball"
# containers/storage remounts / when it unpacks a layer: / must be a mount.
mount --bind "$R" "$R"
mount -t proc proc "$R/proc"
mount --rbind /sys "$R/sys" && mount --make-rslave "$R/sys"
mount --rbind /dev "$R/dev" && mount --make-rslave "$R/dev"
mount -t tmpfs tmpfs "$R/run"
# rehome passes host paths (the input file, its work folders under /tmp).
mount --bind /tmp "$R/tmp"
mkdir -p "$R/run/podman"
chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root PODMAN_IGNORE_CGROUPSV1_WARNING=1 \
  podman system service --time=0 unix:///run/podman/podman.sock > "$home/service.log" 2>&1 &
svc=$!
for _ in $(seq 50); do [ -S "$R/run/podman/podman.sock" ] && break; sleep 0.2; done
export CONTAINER_HOST=unix://$R/run/podman/podman.sock REHOME_HOME=$home/data
echo "Podman in the root: $(chroot "$R" podman --version)"
archive=$(ls /var/cache/rehome/rehome-sandbox-"$(cd "$root" && go run ./build/package/recipetag)".tar.gz)
"$bin" sandbox image load "$archive"
"$bin" sandbox image status
printf 'a,b\n1,2\n3,4\n' > "$home/t.csv"
echo 'import pandas as pd; print(pd.read_csv("/mnt/data/t.csv").sum().to_dict())' > "$home/t.py"
"$bin" run --file "$home/t.csv" "$home/t.py" | tee "$home/run.out"
grep -q "{'a': 4, 'b': 6}" "$home/run.out"
"$bin" sandbox doctor | tail -n 1 | tee "$home/doctor.out"
grep -q "^Every guarantee holds" "$home/doctor.out"
"$bin" doctor | grep -E "podman|storage|image"
echo "PASS: rehome's v4 bindings work against Podman $(chroot "$R" podman --version | awk '{print $3}')"
