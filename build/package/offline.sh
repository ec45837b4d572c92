#!/usr/bin/env bash
# Builds the offline bundle: one tar to carry past an air gap.
#
#   build/package/offline.sh [OUTDIR]      # default build/dist
#
# writes OUTDIR/rehome-offline-<version>-amd64.tar holding
#   rehome-offline-<version>-amd64/
#     install.sh  README.md  SHA256SUMS
#     debs/  rehome_*.deb rehome-sandbox-image_*.deb, Podman and every other
#            package a minimal Debian 12 system lacks for them, and the
#            Packages index that makes the folder an apt repository
#
# The packages to carry are resolved here, at build time, against a minimal
# Debian 12 root (mmdebstrap --variant=minbase, built once and cached in
# $REHOME_BUNDLE_CACHE, default /var/cache/rehome/bundle): apt runs on this
# machine with that root's dpkg status, so exactly the missing packages are
# downloaded, at the versions of bookworm, bookworm-updates and
# bookworm-security of today. Needs the Debian mirror (here, not there) and
# both .debs in OUTDIR (make package builds them first).
#
# Also writes OUTDIR/rehome-offline-<version>-amd64.tar.sha256 and prints the
# archive's SHA-256: the root of trust the user checks the bundle against
# (install.sh --sha256 SUM). Publish it apart from the bundle.
set -euo pipefail
umask 022 # the bundle's files are 0644/0755 whatever the builder's umask
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build/dist}
version=$("$here/version.sh")
mirror=${REHOME_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${REHOME_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
cache=${REHOME_BUNDLE_CACHE:-/var/cache/rehome/bundle}
# Recommended by rehome and Podman, small, and what rootless Podman uses;
# kiwix-tools (kiwix-serve) serves the Kiwix libraries browsing reads.
extra="runc fuse-overlayfs dbus-user-session pci.ids catatonit kiwix-tools"

deb=$(ls "$out"/rehome_"$version"_amd64.deb 2>/dev/null || true)
img=$(ls "$out"/rehome-sandbox-image_*_amd64.deb 2>/dev/null | head -n1 || true)
[ -n "$deb" ] && [ -n "$img" ] || { echo "offline.sh: $out lacks rehome_${version}_amd64.deb or the image package: run \`make package\`" >&2; exit 1; }
for t in mmdebstrap apt-get dpkg-scanpackages; do
  command -v $t >/dev/null || { echo "offline.sh: $t is missing: sudo apt-get install mmdebstrap dpkg-dev" >&2; exit 1; }
done

# The minimal Debian 12 root, once.
mkdir -p "$cache"
base=$cache/bookworm-minbase.tar
if [ ! -s "$base" ]; then
  echo "offline.sh: building a minimal Debian 12 root to resolve against (once; cached in $cache)" >&2
  hooks=
  [ -d /usr/share/mmdebstrap/hooks/merged-usr ] && hooks=--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
  mmdebstrap --quiet --variant=minbase $hooks bookworm "$cache/.part-minbase.tar" \
    "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb $security bookworm-security main"
  mv "$cache/.part-minbase.tar" "$base"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/state/lists/partial" "$work/cache/archives/partial" "$work/etc/apt.conf.d" "$work/etc/preferences.d" "$work/etc/sources.list.d"
tar -xOf "$base" ./var/lib/dpkg/status > "$work/state/status"
cat > "$work/etc/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
apt=(apt-get -q
  -o Dir::State="$work/state" -o Dir::State::status="$work/state/status"
  -o Dir::Cache="$work/cache" -o Dir::Etc::SourceList="$work/etc/sources.list"
  -o Dir::Etc::SourceParts="$work/etc/sources.list.d" -o Dir::Etc::Parts="$work/etc/apt.conf.d"
  -o Dir::Etc::PreferencesParts="$work/etc/preferences.d" -o Debug::NoLocking=1
  -o APT::Install-Recommends=false -o APT::Sandbox::User=root -o Acquire::Languages=none)
"${apt[@]}" update >/dev/null
cp "$deb" "$img" "$work/"
"${apt[@]}" install --download-only -y "$work/$(basename "$deb")" "$work/$(basename "$img")" $extra >"$work/apt.log" || {
  cat "$work/apt.log" >&2; exit 1; }

name=rehome-offline-$version-amd64
stage=$work/$name
mkdir -p "$stage/debs"
cp "$deb" "$img" "$stage/debs/"
cp "$work"/cache/archives/*.deb "$stage/debs/"
(cd "$stage/debs" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null > Packages)
install -m 0755 "$here/bundle-install.sh" "$stage/install.sh"
sed "s/@VERSION@/$version/g" "$here/bundle-README.md" > "$stage/README.md"
(cd "$stage" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort | xargs sha256sum > SHA256SUMS)
tarball=$out/$name.tar
rm -f "$out"/rehome-offline-*-amd64.tar "$out"/rehome-offline-*-amd64.tar.sha256
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-$(date +%s)}" \
  -C "$work" -cf "$tarball" "$name"
(cd "$out" && sha256sum "$name.tar" > "$name.tar.sha256")
echo "offline.sh: $(ls "$stage/debs" | grep -c '\.deb$') packages, $(du -h "$tarball" | cut -f1)" >&2
echo "offline.sh: SHA-256 $(cut -d' ' -f1 "$tarball.sha256") ($tarball.sha256): publish it apart from the bundle; users install with: sudo ./install.sh --sha256 <that sum>" >&2
echo "$tarball"
