#!/usr/bin/env bash
# build/fresh-check.sh — `make test` on a fresh Debian 12, as a new user
# would run it: a minimal Debian 12 root (mmdebstrap, minbase: no make, no
# git, no compiler), a clean clone of this repository's HEAD in it, then
# `build/setup.sh test` and every part of `make test`, each timed. Ends with
# a summary: what ran, how long each part took, what failed and what could
# not run in the root.
#
#   make fresh-check                 # or: sudo build/fresh-check.sh [PART...]
#   FRESH_COLD=1 make fresh-check    # no caches: every download again
#
# PARTs default to those of `make test`: deps-test build fmt-check vet
# lint sandbox-image gotest uitest e2e window.
#
# Needs root (it builds a root file system, mounts /proc, /sys, /dev and
# /run into it and enters it with pivot_root in a private mount and PID
# namespace; rootful and rootless Podman run inside) and mmdebstrap. The Debian mirror is the
# one apt uses on this machine ($REHOME_DEBIAN_MIRROR overrides it).
#
# Toolchains: build/setup.sh downloads Go and Node.js from go.dev and
# nodejs.org when they are missing. Where those sites are not reachable
# (machines that reach only the package registries), the root gets this
# machine's toolchains instead, mounted read-only: /usr/local/go (a newer
# Go is then fetched through the Go module proxy if go.mod asks for it:
# GOTOOLCHAIN=auto) and the node binary with its npm. FRESH_HOST_TOOLS=0
# leaves them out, so setup.sh takes the download route.
#
# Caches (so a rerun is quick), under $FRESH_CACHE (default
# /var/cache/rehome/fresh): the Debian 12 base tarball (rebuilt after a
# week), the root's downloaded .debs, the Go module and build caches, npm's
# cache, the root's /var/cache/rehome (the sandbox image archive: the
# first run builds the image, later runs load it; the llama-server the
# tests run: built by the first run) and its ~/.cache/rehome/tools (the
# pinned staticcheck). FRESH_COLD=1 uses none.
# Uncommitted changes are not checked: the root gets a clone of HEAD.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" != 0 ]; then exec sudo --preserve-env=FRESH_CACHE,FRESH_COLD,FRESH_HOST_TOOLS,REHOME_DEBIAN_MIRROR bash "$0" "$@"; fi
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(deps-test build fmt-check vet lint sandbox-image llama gotest uitest e2e window)

say() { printf '\033[1mfresh-check:\033[0m %s\n' "$*"; }
command -v mmdebstrap >/dev/null || { say "needs mmdebstrap: apt-get install mmdebstrap"; exit 1; }

# The mirror apt uses here (deb.debian.org unless this machine says otherwise).
uris=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null | sort -u || true)
mirror=${REHOME_DEBIAN_MIRROR:-$(awk '$2=="bookworm"{print $1; exit}' <<<"$uris")}
mirror=${mirror:-http://deb.debian.org/debian/}
security=$(awk '$2=="bookworm-security"{print $1; exit}' <<<"$uris")
security=${security:-http://deb.debian.org/debian-security/}

start=$(date +%s)
commit=$(git -C "$repo" rev-parse --short HEAD)
[ -z "$(git -C "$repo" status --porcelain)" ] || say "note: uncommitted changes in $repo are not part of the check (it clones HEAD, $commit)"

if [ "${FRESH_COLD:-0}" = 1 ]; then
  cache=$(mktemp -d /var/tmp/rehome-fresh-cache.XXXXXX)
  trap 'rm -rf "$cache"' EXIT
else
  cache=${FRESH_CACHE:-/var/cache/rehome/fresh}
fi
mkdir -p "$cache"/{apt,gomod,gobuild,npm,rehome,tools}

# 1. The base: Debian 12 minbase, what a fresh server install has.
base=$cache/debian12-minbase.tar
if [ ! -s "$base" ] || [ -n "$(find "$base" -mtime +7)" ]; then
  say "building a minimal Debian 12 root from $mirror"
  hooks=()
  [ -d /usr/share/mmdebstrap/hooks/merged-usr ] && hooks=(--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr)
  mmdebstrap --quiet --variant=minbase --include=ca-certificates "${hooks[@]}" bookworm "$cache/debian12-minbase.tmp.tar" \
    "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb $security bookworm-security main"
  mv "$cache/debian12-minbase.tmp.tar" "$base"
fi
root=$(mktemp -d /var/tmp/rehome-fresh-root.XXXXXX)
cleanup_root() { rm -rf --one-file-system "$root"; }
trap 'cleanup_root; [ "${FRESH_COLD:-0}" = 1 ] && rm -rf "$cache"' EXIT
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# This machine may reach the registries through a TLS-inspecting proxy
# whose CA only its own trust store holds: the root trusts the same extra
# CAs (each certificate of this machine's bundle that Debian's lacks).
mkdir -p "$root/usr/local/share/ca-certificates"
awk -v dir="$root/usr/local/share/ca-certificates" '
  FNR == 1 { file++ }
  /-----BEGIN CERTIFICATE-----/ { b = ""; inb = 1 }
  inb { b = b $0 "\n" }
  /-----END CERTIFICATE-----/ {
    inb = 0
    if (file == 1) seen[b] = 1
    else if (!(b in seen)) { n++; f = sprintf("%s/host-extra-%d.crt", dir, n); printf "%s", b > f; close(f) }
  }' "$root/etc/ssl/certs/ca-certificates.crt" /etc/ssl/certs/ca-certificates.crt
extra=$(ls "$root/usr/local/share/ca-certificates" | wc -l)
[ "$extra" = 0 ] || chroot "$root" update-ca-certificates >/dev/null 2>&1
chmod 1777 "$root/tmp"
git clone -q "$repo" "$root/root/rehome"
git -C "$root/root/rehome" checkout -q "$(git -C "$repo" rev-parse HEAD)"

# 2. Toolchains from this machine, when asked (the default: see above).
host_tools=${FRESH_HOST_TOOLS:-1}
node_bin= npm_dir=
if [ "$host_tools" = 1 ]; then
  if command -v node >/dev/null; then
    node_bin=$(readlink -f "$(command -v node)")
    npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
    mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules/npm"
    touch "$root/usr/local/bin/node"
    ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
    ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  fi
  [ -x /usr/local/go/bin/go ] && mkdir -p "$root/usr/local/go"
fi
say "root $root: Debian 12 minbase + clone of $commit; $extra extra CA certificate(s) from this machine; toolchains: $([ "$host_tools" = 1 ] && echo "this machine's (go: /usr/local/go, node: ${node_bin:-none})" || echo "setup.sh downloads them")"

# 3. The run inside: every part, timed, going on after a failure.
mkdir -p "$root/root/fresh-logs"
cat >"$root/root/fresh-run.sh" <<'EOF'
set -u
cd /root/rehome
results=()
for part in "$@"; do
  t0=$(date +%s)
  printf '\n\033[1m=== %s\033[0m\n' "$part"
  if [ "$part" = deps-test ]; then cmd=(bash build/setup.sh test); else cmd=(make --no-print-directory "$part"); fi
  "${cmd[@]}" > >(tee "/root/fresh-logs/$part.log") 2>&1
  rc=$?
  results+=("$part $rc $(( $(date +%s) - t0 ))")
  # setup.sh must leave a machine that builds: without it nothing else means anything.
  [ "$part" = deps-test ] && [ $rc != 0 ] && break
done
printf '%s\n' "${results[@]}" >/root/fresh-logs/results
EOF

export mirror
set +e
unshare --mount --pid --fork --propagation private bash -euc '
  root=$1; cache=$2; node_bin=$3; npm_dir=$4; shift 4
  # The root must be a mount point: containers/storage makes "/" private
  # (mount --make-rprivate /) when it unpacks an image, which fails on a
  # plain directory.
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
  mount -t tmpfs -o mode=0755 run "$root/run"
  mount --bind "$cache/apt" "$root/var/cache/apt/archives"
  mkdir -p "$root/root/go/pkg/mod" "$root/root/.cache/go-build" "$root/root/.npm" "$root/var/cache/rehome" "$root/root/.cache/rehome/tools"
  mount --bind "$cache/gomod" "$root/root/go/pkg/mod"
  mount --bind "$cache/gobuild" "$root/root/.cache/go-build"
  mount --bind "$cache/npm" "$root/root/.npm"
  mount --bind "$cache/rehome" "$root/var/cache/rehome"
  mount --bind "$cache/tools" "$root/root/.cache/rehome/tools"
  if [ -n "$node_bin" ]; then
    mount --bind -o ro "$node_bin" "$root/usr/local/bin/node"
    mount --bind -o ro "$npm_dir" "$root/usr/local/lib/node_modules/npm"
  fi
  if [ -d "$root/usr/local/go" ]; then mount --rbind -o ro /usr/local/go "$root/usr/local/go"; fi
  # pivot_root, not chroot: the kernel refuses user namespaces to a
  # chrooted process (whose root is not its mount namespace'"'"'s), and
  # rootless Podman and mmdebstrap'"'"'s unshare mode need them.
  cd "$root"
  mkdir -p .oldroot
  pivot_root . .oldroot
  cd /
  /.oldroot/usr/bin/umount -l /.oldroot
  rmdir /.oldroot || true
  exec /usr/bin/env -i HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/go/bin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    REHOME_DEBIAN_MIRROR="${mirror%/}" NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    bash /root/fresh-run.sh "$@"
' fresh "$root" "$cache" "$node_bin" "$npm_dir" "${parts[@]}"
set -e

# 4. The summary.
keep=/var/tmp/rehome-fresh-logs
rm -rf "$keep"; cp -r "$root/root/fresh-logs" "$keep"
echo
say "summary (Debian 12 minbase root, clone of $commit, $(nproc) cores)"
total=0 failed=()
declare -A ran
while read -r part rc secs; do
  ran[$part]=1
  total=$((total + secs))
  if [ "$rc" = 0 ]; then st=ok; else st="FAILED (exit $rc)"; failed+=("$part"); fi
  printf '  %-14s %-18s %5d s\n' "$part" "$st" "$secs"
done <"$keep/results"
for p in "${parts[@]}"; do [ -n "${ran[$p]:-}" ] || printf '  %-14s %s\n' "$p" "not run (setup failed)"; done
printf '  %-14s %-18s %5d s\n' "all parts" "" "$total"
say "whole check: $(( $(date +%s) - start )) s; logs per part in $keep"
for p in "${failed[@]}"; do
  say "--- last lines of $p ---"
  tail -n 40 "$keep/$p.log"
done
[ ${#failed[@]} = 0 ] && [ ${#ran[@]} = ${#parts[@]} ]
