#!/bin/sh
# Installs rehome from this offline bundle, with no network. First it
# checks the bundle against a root of trust that does not travel with it:
# the archive's SHA-256, which you were given apart from the bundle (where
# it was published, or by whoever built it: offline.sh prints it and
# writes it to <archive>.sha256). Then every unpacked file against
# SHA256SUMS (from that same archive), then apt installs rehome, its
# sandbox image and whatever of Podman and the libraries this machine
# lacks, from the debs/ folder only (a temporary apt source; the system's
# own sources and package lists are neither used nor changed).
#
#   sudo ./install.sh --sha256 SUM [ARCHIVE]     # check, then install
#   ./install.sh --check --sha256 SUM [ARCHIVE]  # check only (and read debs/)
#
# ARCHIVE is the .tar this folder was unpacked from (default: beside the
# folder, under its name). Run `sha256sum ARCHIVE` yourself first, too: a
# tampered bundle could carry a tampered install.sh.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
say() { printf 'rehome install: %s\n' "$*"; }
die() { printf 'rehome install: %s\n' "$*" >&2; exit 1; }

check=false sum= archive=
while [ $# -gt 0 ]; do
  case $1 in
    --check) check=true ;;
    --sha256) [ $# -ge 2 ] || die "--sha256 needs the archive's SHA-256"; sum=$2; shift ;;
    --sha256=*) sum=${1#--sha256=} ;;
    -h|--help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$archive" ] || die "give one archive"; archive=$1 ;;
  esac
  shift
done
name=$(basename "$here")
[ -n "$archive" ] || archive=$here.tar
sum=$(printf '%s' "$sum" | tr 'A-F' 'a-f')
case $sum in
  "") die "give the archive's SHA-256: sudo $0 --sha256 SUM — SUM is the 64-digit value published with the bundle (or in $name.tar.sha256 from whoever built it), got apart from the bundle itself" ;;
  *[!0-9a-f]*) die "--sha256 $sum is not a SHA-256 (64 hexadecimal digits)" ;;
esac
[ ${#sum} -eq 64 ] || die "--sha256 $sum is not a SHA-256 (64 hexadecimal digits)"
[ -f "$archive" ] || die "$archive is not here: give the path of the $name.tar you unpacked: $0 --sha256 SUM /path/to/$name.tar"

say "checking $(basename "$archive") against the SHA-256 you gave"
got=$(sha256sum < "$archive" | cut -d' ' -f1)
[ "$got" = "$sum" ] || die "$(basename "$archive") has SHA-256 $got, not the $sum you were given: it is not the published bundle (damaged or changed); do not install it, get the bundle again"
tar -xOf "$archive" "$name/SHA256SUMS" 2>/dev/null | cmp -s - SHA256SUMS ||
  die "the files in $here are not the ones in $(basename "$archive"): unpack it again (tar -xf $(basename "$archive"))"
say "checking the bundle's files against SHA256SUMS"
sha256sum --check --quiet --strict SHA256SUMS || die "some files do not match SHA256SUMS: the bundle is damaged or incomplete; unpack it again"

command -v apt-get >/dev/null || die "apt-get is missing: this bundle is for Debian 12 (bookworm) and its derivatives"
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || die "this bundle is for amd64 machines; this one is $arch"
$check || [ "$(id -u)" = 0 ] || die "installing needs root: run \`sudo $0 --sha256 $sum\`"

# A folder of its own with no space in its path (apt's source lines split
# at spaces): the bundle's debs/ are reached through a link from there.
tmp=$(mktemp -d /tmp/rehome-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/parts" "$tmp/cache/archives/partial"
ln -s "$here/debs" "$tmp/debs"
# The bundle's folder is an apt repository (debs/Packages); its files were
# checked above against the archive you checked, so apt may trust it.
echo "deb [trusted=yes] file:$tmp/debs ./" > "$tmp/sources.list"
set -- -o Dir::Etc::SourceList="$tmp/sources.list" -o Dir::Etc::SourceParts="$tmp/parts" \
  -o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
  -o Acquire::Languages=none -o APT::Sandbox::User=root -o APT::Install-Recommends=false -o Acquire::http::Proxy=false
say "reading the bundle's package index"
apt-get -q "$@" update >"$tmp/update.log" 2>&1 || { cat "$tmp/update.log" >&2; die "apt could not read debs/Packages"; }
n=$(apt-cache "$@" dumpavail 2>/dev/null | grep -c '^Package:' || true)
if $check; then say "all files match; apt reads $n packages from debs/"; exit 0; fi
t0=$(date +%s)
say "installing rehome, its sandbox image and what this machine lacks (offline)"
DEBIAN_FRONTEND=${DEBIAN_FRONTEND:-noninteractive} apt-get -q -y "$@" install \
  rehome rehome-sandbox-image runc fuse-overlayfs dbus-user-session pci.ids catatonit
say "done in $(( $(date +%s) - t0 )) s. Start rehome from the menu, or run \`rehome\`."
say "On first start rehome loads its sandbox image into your Podman (a minute or so) and shows a short checklist."
