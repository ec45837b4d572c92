#!/usr/bin/env bash
# Attacks on the packaging, each a check that fails on a broken build:
#
#   build/package/trust-check.sh            # all three, a minute or two
#
# 1. deb.sh and image-deb.sh under umask 002: every file in both packages
#    is -rw-r--r-- (the binary -rwxr-xr-x), every folder drwxr-xr-x.
# 2. The offline bundle's root of trust: install.sh refuses without the
#    archive's SHA-256, with a wrong one, and a tampered bundle whose
#    SHA256SUMS were regenerated; it accepts the real one.
# 3. install.sh works from a folder whose path holds a space.
#
# 2 and 3 use a bundle of one tiny package made here (install.sh --check
# reads its index with apt and installs nothing). 1 builds the CLI binary
# (core tags) and needs the sandbox image archive in the cache
# ($REHOME_CACHE or /var/cache/rehome; `rehome sandbox image build` makes it).
# Needs dpkg-dev, fakeroot, apt, go.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
pass() { echo "ok    $*"; }
fail() { echo "FAIL  $*"; fails=$((fails + 1)); }

# 1. File modes under umask 002.
version=0.0.0~trust.check
tags="remote,exclude_graphdriver_btrfs,btrfs_noversion,exclude_graphdriver_devicemapper,containers_image_openpgp"
(cd "$root" && CGO_CFLAGS=-Wno-deprecated-declarations go build -tags "$tags" -ldflags "-X main.version=$version" -o "$work/rehome" .)
mkdir -p "$work/dist"
(umask 002 && REHOME_BIN=$work/rehome REHOME_VERSION=$version "$here/deb.sh" "$work/dist" >/dev/null)
(umask 002 && REHOME_BIN=$work/rehome REHOME_VERSION=$version REHOME_CACHE=${REHOME_CACHE:-/var/cache/rehome} "$here/image-deb.sh" "$work/dist" >/dev/null)
for deb in "$work"/dist/*.deb; do
  modes=$(dpkg-deb -c "$deb" | awk '{print $1, $6}')
  bad=$(echo "$modes" | awk '$1 !~ /^(-rw-r--r--|drwxr-xr-x)$/ && !($1 == "-rwxr-xr-x" && $2 == "./usr/bin/rehome")' )
  n=$(echo "$modes" | wc -l)
  if [ -z "$bad" ]; then
    pass "$(basename "$deb"), built under umask 002: $n entries, all 0644 / 0755"
  else
    fail "$(basename "$deb"), built under umask 002: $(echo "$bad" | wc -l) of $n entries with other modes: $(echo "$bad" | head -n 3 | tr '\n' ';')"
  fi
done

# A bundle of one tiny package, as offline.sh lays it out, unpacked under
# a folder with a space.
mkbundle() { # DIR NAME: DIR/NAME.tar and its .sha256
  local d=$1 name=$2 stage=$1/stage/$2
  mkdir -p "$stage/debs" "$d/stage/pkg/DEBIAN" "$d/stage/pkg/usr/share/doc/rehome-trust-test"
  printf 'Package: rehome-trust-test\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.com>\nDescription: t\n t\n' > "$d/stage/pkg/DEBIAN/control"
  echo test > "$d/stage/pkg/usr/share/doc/rehome-trust-test/README"
  dpkg-deb --root-owner-group --build "$d/stage/pkg" "$stage/debs/rehome-trust-test_1_all.deb" >/dev/null
  (cd "$stage/debs" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null > Packages)
  install -m 0755 "$here/bundle-install.sh" "$stage/install.sh"
  echo "readme" > "$stage/README.md"
  (cd "$stage" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort | xargs sha256sum > SHA256SUMS)
  tar -C "$d/stage" -cf "$d/$name.tar" "$name"
  (cd "$d" && sha256sum "$name.tar" > "$name.tar.sha256")
}
name=rehome-offline-0.0.0-amd64
pub="$work/published copy"
mkdir -p "$pub"
mkbundle "$pub" "$name"
sum=$(cut -d' ' -f1 "$pub/$name.tar.sha256")
usb="$work/USB stick/my files"
mkdir -p "$usb"
cp "$pub/$name.tar" "$usb/"
tar -C "$usb" -xf "$usb/$name.tar"
inst="$usb/$name/install.sh"

# expect WANT(0|1) WHAT TEXT CMD...: the command's exit and words.
expect() {
  local want=$1 what=$2 text=$3; shift 3
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if { [ "$want" = 0 ] && [ $rc = 0 ]; } || { [ "$want" = 1 ] && [ $rc != 0 ]; }; then
    if grep -q -- "$text" <<<"$out"; then pass "$what"; return; fi
  fi
  fail "$what: exit $rc, said: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
}

# 3 and 2: the real bundle, from a folder with a space.
expect 0 "install.sh --check with the published SHA-256, from \"$usb\": apt reads the bundle" "apt reads 1 packages" \
  "$inst" --check --sha256 "$sum"
expect 1 "install.sh without a SHA-256 is refused, saying where to get it" "give the archive's SHA-256" \
  "$inst" --check
expect 1 "install.sh with a wrong SHA-256 is refused" "it is not the published bundle" \
  "$inst" --check --sha256 "$(printf '%064d' 0)"

# 2: a tampered bundle with regenerated sums, carried as the real one.
evil="$work/evil"
mkdir -p "$evil"
tar -C "$evil" -xf "$pub/$name.tar"
echo 'echo pwned' >> "$evil/$name/README.md"
(cd "$evil/$name" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort | xargs sha256sum > SHA256SUMS)
tar -C "$evil" -cf "$evil/$name.tar" "$name"
(cd "$evil/$name" && sha256sum --check --quiet --strict SHA256SUMS) || fail "the tampered bundle's own sums do not hold (the attack is not set up)"
expect 1 "a tampered bundle with regenerated SHA256SUMS is refused against the published SHA-256" "it is not the published bundle" \
  "$evil/$name/install.sh" --check --sha256 "$sum"
# Files changed after unpacking the real archive (sums regenerated).
echo 'echo pwned' >> "$usb/$name/README.md"
(cd "$usb/$name" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort | xargs sha256sum > SHA256SUMS)
expect 1 "unpacked files changed after the archive was checked are refused" "are not the ones in" \
  "$inst" --check --sha256 "$sum"

[ $fails = 0 ] && echo "PASS" || { echo "$fails check(s) failed"; exit 1; }
