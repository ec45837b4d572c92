#!/bin/sh
# build-rootfs.sh OUTPUT.tar — build the root filesystem of rehome's Code
# Interpreter sandbox image from Debian packages, as a plain tar archive.
#
# It runs from the directory that holds the recipe (this script,
# packages.txt, runner.py, prelude.py); `rehome sandbox image build` writes
# the copy embedded in the binary to a fresh directory and runs it there,
# then imports the tar into Podman as localhost/rehome-sandbox:<digest>.
#
# Needs mmdebstrap (`sudo apt-get install mmdebstrap`) and a Debian mirror:
# $REHOME_DEBIAN_MIRROR, else deb.debian.org. As root it builds in a chroot;
# as another user it uses mmdebstrap's unshare mode (needs /etc/subuid).
# No container registry is involved at any point.
set -eu

out=${1:?usage: build-rootfs.sh OUTPUT.tar}
here=$(cd "$(dirname "$0")" && pwd)
mirror=${REHOME_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${REHOME_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
suite=bookworm

for tool in mmdebstrap dpkg-deb; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "build-rootfs.sh: $tool is not installed: sudo apt-get install mmdebstrap" >&2
		exit 1
	}
done

pkgs=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/packages.txt" | tr -s '[:space:]' ',' | sed 's/,$//')

# stubs.txt names hard dependencies that nothing in the image uses at run
# time (scipy's build-time compiler and its g++ and headers, Tk). Each is
# replaced by an empty local package of the same name. apt hands the paths
# of local packages to dpkg inside the chroot, so they sit at the same path
# there.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/deb"
stubs=
for name in $(sed -e 's/#.*//' "$here/stubs.txt"); do
	mkdir -p "$work/stub-$name/DEBIAN"
	printf '%s\n' \
		"Package: $name" \
		'Version: 99:0~rehome' \
		'Architecture: all' \
		'Maintainer: rehome <rehome@localhost>' \
		"Description: empty stand-in for $name" \
		" rehome's sandbox image needs none of this package's files." \
		>"$work/stub-$name/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$work/stub-$name" "$work/deb/$name.deb" >/dev/null
	stubs="$stubs --include=$work/deb/$name.deb"
done
# In unshare mode (not root) apt runs as the unshared user, a subordinate
# id that must be able to read the stubs: mktemp made $work private.
chmod -R a+rX "$work"

# Debian 12 expects a merged /usr; mmdebstrap's hook sets it up directly,
# where otherwise apt would pull the usrmerge converter and perl with it.
hooks=
if [ -d /usr/share/mmdebstrap/hooks/merged-usr ]; then
	hooks=--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
fi

# $REHOME_APT_CACHE, when set, keeps the downloaded packages between builds
# (a rebuild with an unchanged mirror then needs no network).
cache=
syncout=true
set --
if [ -n "${REHOME_APT_CACHE:-}" ]; then
	mkdir -p "$REHOME_APT_CACHE"
	cache=$(cd "$REHOME_APT_CACHE" && pwd)
	set -- --skip=essential/unlink \
		--setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
		--setup-hook="sync-in $cache /var/cache/apt/archives/"
	syncout="sync-out /var/cache/apt/archives $cache"
fi

mode=root
[ "$(id -u)" = 0 ] || mode=unshare
# Hooks run as the unshared root, a subordinate id that cannot enter the
# caller's private folders: run from / (the output path made absolute).
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd /

# The essential variant installs only Essential:yes packages plus the
# --include list (apt itself stays outside the image). Documentation, man
# pages and locales are never unpacked; the libraries' test suites are
# deleted after installation (their postinst byte-compiles them).
# Byte-compiled caches are kept: the root filesystem is read-only at run
# time and Python could not write them then. dpkg skips its fsyncs
# (force-unsafe-io): the result is a tar file, not a system that must
# survive a power cut mid-install.
mmdebstrap \
	--mode="$mode" \
	--variant=essential \
	--aptopt='APT::Install-Recommends "false"' \
	--aptopt='APT::Install-Suggests "false"' \
	--dpkgopt='force-unsafe-io' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/info/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/lintian/*' \
	$hooks \
	--setup-hook="mkdir -p \"\$1$work\"" \
	"$@" \
	--setup-hook="copy-in $work/deb $work" \
	--include="$pkgs" \
	$stubs \
	--customize-hook="$syncout" \
	--customize-hook="rm -rf \"\$1$work\"" \
	--customize-hook='mkdir -p "$1/opt/rehome" "$1/mnt/data"' \
	--customize-hook="copy-in $here/runner.py $here/prelude.py $here/kernel.py /opt/rehome" \
	--customize-hook='echo "sandbox:x:10001:10001:rehome sandbox:/tmp:/usr/sbin/nologin" >>"$1/etc/passwd"' \
	--customize-hook='echo "sandbox:x:10001:" >>"$1/etc/group"' \
	--customize-hook='echo "sandbox:!:19000::::::" >>"$1/etc/shadow"' \
	--customize-hook='echo sandbox >"$1/etc/hostname"' \
	--customize-hook='printf "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tsandbox\n" >"$1/etc/hosts"' \
	--customize-hook='rm -f "$1/etc/resolv.conf"' \
	--customize-hook='find "$1/usr/lib/python3/dist-packages" -type d -name tests -prune -exec rm -rf {} +' \
	--customize-hook='chroot "$1" env MPLCONFIGDIR=/opt/rehome/mpl MPLBACKEND=Agg python3 -c "import matplotlib.pyplot"' \
	--customize-hook='chroot "$1" python3 -c "import numpy, pandas, scipy.optimize, scipy.stats, seaborn, sklearn.linear_model, statsmodels.api, openpyxl, xlrd, tabulate"' \
	--customize-hook='chmod 0755 "$1/opt/rehome" "$1/opt/rehome/mpl"; chmod 0644 "$1/opt/rehome"/*.py "$1/opt/rehome/mpl"/*' \
	--customize-hook='rm -rf "$1/var/cache/apt" "$1/var/lib/apt/lists" "$1/var/cache/ldconfig/aux-cache" "$1/var/cache/debconf"/*-old "$1/var/log"/*' \
	"$suite" "$out" \
	"deb $mirror $suite main" \
	"deb $mirror $suite-updates main" \
	"deb $security $suite-security main"
