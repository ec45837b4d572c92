#!/usr/bin/env bash
# Installs what rehome needs on a Debian/Ubuntu machine, idempotently:
# nothing is downloaded twice, and a machine that has everything is left
# alone. `build/setup.sh run` installs what building and running need;
# `build/setup.sh test` adds what the tests need (a headless browser, Xvfb…);
# `build/setup.sh package` what `make package` needs (dpkg-dev, fakeroot,
# lintian).
# Uses sudo when not root. All of this needs the network once; rehome itself
# never does at run time.
set -euo pipefail
mode=${1:-run}
cd "$(dirname "$0")/.."

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian packages. The run set builds the window (GTK + WebKitGTK 4.1),
# names GPUs offline (pci.ids), runs the code sandbox (Podman, runc, and
# mmdebstrap to build its image from Debian packages), installs the desktop
# entry with "Open with rehome" (desktop-file-utils, shared-mime-info),
# unpacks the official Node.js release when Debian's is too old (xz-utils)
# and serves carried Kiwix libraries for browsing (kiwix-tools: kiwix-serve).
apt_run=(build-essential make pkg-config git curl ca-certificates xz-utils libgtk-3-dev libwebkit2gtk-4.1-dev pci.ids
  podman runc crun uidmap slirp4netns fuse-overlayfs catatonit mmdebstrap zstd
  desktop-file-utils shared-mime-info kiwix-tools)
# The test set: the window under Xvfb (xauth, screenshots with ImageMagick,
# clicks with xdotool, a GTK drag source in Python), headless Chromium,
# python3 to check generated code, and useradd/runuser (passwd, util-linux)
# for the rootless test's user, python3-nbformat to validate exported notebooks,
# cmake to build llama.cpp's llama-server (build/llm/llama-server.sh), and
# for its Vulkan build glslc and the Vulkan loader's headers, with Mesa's
# Vulkan drivers (lavapipe: a Vulkan device on the CPU) to test it on;
# qpdf to make an encrypted PDF and the Debian manuals the knowledge bench
# searches (bzip2-doc, libtasn1-doc, valgrind, shared-mime-info's spec);
# zim-tools (zimwriterfs) and python3.11-doc, the HTML the browsing tests
# build a real ZIM from; xclip puts an image on the X clipboard for the
# window's paste test.
apt_test=(openssh-server xvfb xauth imagemagick xdotool xclip chromium python3 python3-gi gir1.2-gtk-3.0 passwd util-linux time python3-nbformat cmake
  glslc libvulkan-dev mesa-vulkan-drivers qpdf bzip2-doc libtasn1-doc valgrind zim-tools python3.11-doc)
# zsh and fish: the shell completion's tests source rehome's scripts in them.
apt_test+=(zsh fish)
want=("${apt_run[@]}")
[ "$mode" = test ] && want+=("${apt_test[@]}")
# The packages: dpkg-deb and dpkg-shlibdeps, fakeroot, dpkg-scanpackages for
# the offline bundle's index, lintian to check them.
[ "$mode" = package ] && want+=(dpkg-dev fakeroot lintian)

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    say "this script knows Debian and Ubuntu (apt-get); install these by hand: ${missing[*]}"
    exit 1
  fi
  say "installing Debian packages: ${missing[*]}"
  sudo_ apt-get update -qq
  sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Go: go.mod names the version; an older Go 1.21+ fetches it by itself
# (GOTOOLCHAIN=auto). Without any Go, install the official release.
go_want=$(awk '/^go /{print $2}' go.mod)
if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH; fi
if ! command -v go >/dev/null; then
  say "installing Go $go_want to /usr/local/go"
  arch=$(dpkg --print-architecture)
  curl -fsSL "https://go.dev/dl/go${go_want}.linux-${arch}.tar.gz" | sudo_ tar -C /usr/local -xz
  export PATH=/usr/local/go/bin:$PATH
fi

# Node.js 20.19+ builds the UI (Vite 8). Debian 12 ships 18: then install
# the official release.
node_ok() { command -v node >/dev/null && node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a==20&&b>=19)?0:1)'; }
if ! node_ok; then
  ver=v20.19.5
  arch=$(dpkg --print-architecture); [ "$arch" = amd64 ] && arch=x64
  say "installing Node.js $ver to /usr/local"
  curl -fsSL "https://nodejs.org/dist/$ver/node-$ver-linux-$arch.tar.xz" | sudo_ tar -C /usr/local --strip-components=1 -xJ
fi

# npm packages, again only when the lock file changed.
stamp=frontend/node_modules/.rehome-lock
lock_sum=$(sha256sum frontend/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$lock_sum" ]; then
  say "installing the UI's npm packages"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_sum" > "$stamp"
fi
# MCP programs nobody here wrote, for the tests of `rehome mcp`: the MCP
# Inspector's CLI and the reference server-everything (build/mcp), again
# only when their lock file changed.
if [ "$mode" = test ]; then
  mstamp=build/mcp/node_modules/.rehome-lock
  mlock=$(sha256sum build/mcp/package-lock.json | cut -d' ' -f1)
  if [ "$(cat "$mstamp" 2>/dev/null)" != "$mlock" ]; then
    say "installing the MCP test programs (MCP Inspector, server-everything)"
    (cd build/mcp && npm ci --no-audit --no-fund --loglevel=error)
    echo "$mlock" > "$mstamp"
  fi
fi
# The tests check Modelfile exports with Ollama's own parser, a separate
# module under testdata; fetch it once so the test does not skip.
if [ "$mode" = test ]; then
  (cd backend/assistant/testdata/ollamacheck && GOFLAGS= GOWORK=off go mod download) || {
    say "could not fetch Ollama's parser (is the Go module proxy reachable?); make test needs it"
    exit 1
  }
fi
say "ready ($mode)"
