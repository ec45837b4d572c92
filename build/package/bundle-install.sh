#!/bin/sh
# Installs rehome from this offline bundle, with no network: checks every
# file against SHA256SUMS, then lets apt install rehome, its sandbox image
# and whatever of Podman and the libraries this machine lacks, from the
# debs/ folder only (a temporary apt source; the system's own sources and
# package lists are neither used nor changed).
#
#   sudo ./install.sh            # install
#   ./install.sh --check         # only check the sums
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
say() { printf 'rehome install: %s\n' "$*"; }
die() { printf 'rehome install: %s\n' "$*" >&2; exit 1; }

say "checking the bundle's files against SHA256SUMS"
sha256sum --check --quiet --strict SHA256SUMS || die "some files do not match SHA256SUMS: the bundle is damaged or incomplete; copy it again"
[ "${1:-}" = "--check" ] && { say "all files match"; exit 0; }
[ "$(id -u)" = 0 ] || die "installing needs root: run \`sudo $0\`"
command -v apt-get >/dev/null || die "apt-get is missing: this bundle is for Debian 12 (bookworm) and its derivatives"
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || die "this bundle is for amd64 machines; this one is $arch"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/parts" "$tmp/cache/archives/partial"
# The bundle's folder is an apt repository (debs/Packages); its files were
# checked above, so apt may trust it.
echo "deb [trusted=yes] file:$here/debs ./" > "$tmp/sources.list"
set -- -o Dir::Etc::SourceList="$tmp/sources.list" -o Dir::Etc::SourceParts="$tmp/parts" \
  -o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
  -o Acquire::Languages=none -o APT::Sandbox::User=root -o APT::Install-Recommends=false -o Acquire::http::Proxy=false
say "reading the bundle's package index"
apt-get -q "$@" update >"$tmp/update.log" 2>&1 || { cat "$tmp/update.log" >&2; die "apt could not read debs/Packages"; }
t0=$(date +%s)
say "installing rehome, its sandbox image and what this machine lacks (offline)"
DEBIAN_FRONTEND=${DEBIAN_FRONTEND:-noninteractive} apt-get -q -y "$@" install \
  rehome rehome-sandbox-image runc fuse-overlayfs dbus-user-session pci.ids catatonit
say "done in $(( $(date +%s) - t0 )) s. Start rehome from the menu, or run \`rehome\`."
say "On first start rehome loads its sandbox image into your Podman (a minute or so) and shows a short checklist."
