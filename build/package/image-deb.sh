#!/usr/bin/env bash
# Builds the sandbox image as a Debian package:
#
#   build/package/image-deb.sh [OUTDIR]      # default build/dist
#
# writes OUTDIR/rehome-sandbox-image_<n>+<tag>_amd64.deb holding
# /usr/share/rehome/rehome-sandbox-<tag>.tar.gz (the image archive of this
# tree's recipe, as `rehome sandbox image save` writes it) and its .sha256.
# rehome finds it there and loads it into the user's Podman on first start,
# after checking the sum; no maintainer script (each user's rootless
# storage is their own, so the load happens per user, in rehome).
#
# The archive comes from the cache `rehome sandbox image build` leaves
# ($REHOME_CACHE, /var/cache/rehome for root, ~/.cache/rehome), else from
# the image in Podman's storage, else it is built (needs the Debian mirror).
# Architecture is amd64, not all: the image holds amd64 programs. Every
# file is 0644 and every folder 0755, whatever the builder's umask.
set -euo pipefail
umask 022
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build/dist}
bin=${REHOME_BIN:-$root/build/bin/rehome}
[ -x "$bin" ] || { echo "image-deb.sh: $bin is missing: run \`make build\` first" >&2; exit 1; }
tag=$(cd "$root" && go run ./build/package/recipetag)
version=$("$here/image-version.sh")
name=rehome-sandbox-$tag.tar.gz
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct -- sandbox/recipe build/sandbox 2>/dev/null || date +%s)}

cache=${REHOME_CACHE:-}
if [ -z "$cache" ]; then
  if [ "$(id -u)" = 0 ]; then cache=/var/cache/rehome; else cache=${XDG_CACHE_HOME:-$HOME/.cache}/rehome; fi
fi
archive=$cache/$name
if [ ! -s "$archive" ]; then
  if "$bin" sandbox image status --json 2>/dev/null | grep -q '"present": true'; then
    echo "image-deb.sh: saving the image from Podman's storage to $archive" >&2
    "$bin" sandbox image save "$archive"
  else
    echo "image-deb.sh: building the sandbox image (needs the Debian mirror, a few minutes)" >&2
    "$bin" sandbox image build --quiet
  fi
fi
[ -s "$archive" ] || { echo "image-deb.sh: no archive at $archive after building it" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg=$work/pkg
mkdir -p "$pkg/DEBIAN" "$pkg/usr/share/rehome" "$pkg/usr/share/doc/rehome-sandbox-image"
cp "$archive" "$pkg/usr/share/rehome/$name"
chmod 0644 "$pkg/usr/share/rehome/$name"
(cd "$pkg/usr/share/rehome" && sha256sum "$name" > "$name.sha256")
cat > "$pkg/usr/share/doc/rehome-sandbox-image/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: rehome-sandbox-image
Comment: The image is a Debian 12 root file system built by rehome's recipe
 (sandbox/recipe: mmdebstrap with the packages in packages.txt) plus
 rehome's runner. Each Debian package in it keeps its copyright file
 under /usr/share/doc inside the image.

Files: *
Copyright: 2026 the rehome developers
 2026 the authors of the Debian packages in the image
License: various
 The licenses of the Debian packages it holds (DFSG-free: Debian main);
 see /usr/share/doc/*/copyright inside the image.
EOF
{
  echo "rehome-sandbox-image ($version) unstable; urgency=medium"
  echo
  echo "  * The sandbox image of recipe"
  echo "    $(cd "$root" && go run ./build/package/recipetag -digest)."
  echo
  echo " -- rehome developers <rehome@users.noreply.github.com>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$pkg/usr/share/doc/rehome-sandbox-image/changelog.gz"
size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
cat > "$pkg/DEBIAN/control" <<EOF
Package: rehome-sandbox-image
Version: $version
Architecture: amd64
Maintainer: rehome developers <rehome@users.noreply.github.com>
Installed-Size: $size
Enhances: rehome
Section: science
Priority: optional
Description: sandbox image for rehome's local Code Interpreter
 The Podman image rehome runs Python in (Debian 12 with pandas, numpy,
 matplotlib, scipy, seaborn, scikit-learn, statsmodels and openpyxl),
 as an archive that rehome loads into the user's Podman on first start,
 after checking its SHA-256, so no image has to be pulled or built.
 .
 Image tag: $tag.
EOF
(cd "$pkg" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$pkg/DEBIAN/md5sums"
find "$pkg" -type f -exec chmod 0644 {} +
find "$pkg" -type d -exec chmod 0755 {} +
mkdir -p "$out"
rm -f "$out"/rehome-sandbox-image_*.deb
deb=$out/rehome-sandbox-image_${version}_amd64.deb
# The archive is gzip already: the fastest gzip level is enough.
dpkg-deb --root-owner-group -Zgzip -z1 --build "$pkg" "$deb" >/dev/null
echo "$deb"
