#!/usr/bin/env bash
# Builds llama.cpp's llama-server CPU-only from the source that ships inside
# the npm package node-llama-cpp@3.21.1 (a git bundle of llama.cpp commit
# 80fb11ac), for the tests that run the ask loop against a real model
# server. Static, GGML_NATIVE=OFF (runs on any x86-64), no OpenSSL, no web
# UI (it would try to download one). Cached under $REHOME_CACHE (default
# /var/cache/rehome) keyed by commit, compiler and flags, so the build is
# paid once; prints the binary's path.
#
#   build/llm/llama-server.sh            # build if needed, print the path
#   build/llm/llama-server.sh --find     # print the path if built, else fail
#   build/llm/llama-server.sh --vulkan   # the Vulkan build (GPUs of every
#                                        # vendor), the same way
#
# The Vulkan build links the system's libvulkan.so.1 (Debian 12's loader,
# package libvulkan1) and compiles its shaders with Debian 12's glslc. This
# llama.cpp commit needs newer Vulkan headers than Debian 12's 1.3.239
# (vk::LayerSettingEXT) and the SPIR-V headers: Debian 13's libvulkan-dev
# and spirv-headers are fetched from the Debian mirror once, unpacked (not
# installed: header-only) into the cache and used for this build alone.
#
# Beside the binary it keeps the two files of the source that the tests'
# tiny model is made from (internal/testsupport/tinymodel): the Qwen2 vocabulary
# (models/ggml-vocab-qwen2.gguf) and the Qwen2.5 chat template.
#
# Needs: npm (once, for the package), cmake, g++. About 8 minutes on 2 cores.
set -euo pipefail
find_only= vulkan=
for a in "$@"; do
	case $a in
	--find) find_only=1 ;;
	--vulkan) vulkan=1 ;;
	*) echo "usage: $0 [--find] [--vulkan]" >&2; exit 2 ;;
	esac
done
PKG=node-llama-cpp@3.21.1
CACHE=${REHOME_CACHE:-/var/cache/rehome}
FLAGS="-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
work=$CACHE/llama
name=llama-server
if [ -n "$vulkan" ]; then
	name=llama-server-vulkan
	hdr=$CACHE/vulkan-headers-1.4.309
	FLAGS="$FLAGS -DGGML_VULKAN=ON -DVulkan_INCLUDE_DIR=$hdr/usr/include -DSPIRV-Headers_DIR=$hdr/usr/share/cmake/SPIRV-Headers -DCMAKE_CXX_FLAGS=-I$hdr/usr/include"
fi
not_built() {
	echo "$name is not built: run build/llm/llama-server.sh${vulkan:+ --vulkan} (about 8 minutes on 2 cores)" >&2
	exit 1
}
[ -n "$find_only" ] && [ ! -d "$work/src/.git" ] && not_built
mkdir -p "$work"
if [ ! -f "$work/package/llama/gitRelease.bundle" ]; then
	(cd "$work" && npm pack --silent "$PKG" >/dev/null && tar xzf node-llama-cpp-*.tgz)
fi
if [ ! -d "$work/src/.git" ]; then
	rm -rf "$work/src"
	git clone -q "$work/package/llama/gitRelease.bundle" "$work/src"
fi
commit=$(git -C "$work/src" rev-parse --short=8 HEAD)
cc=$(g++ -dumpfullversion 2>/dev/null || g++ -dumpversion)
key=$(printf '%s %s %s' "$commit" "$cc" "$FLAGS" | sha256sum | cut -c1-12)
out=$CACHE/$name-$commit-$key
mkdir -p "$out"
for f in models/ggml-vocab-qwen2.gguf models/templates/Qwen-Qwen2.5-7B-Instruct.jinja; do
	[ -f "$out/$(basename "$f")" ] || cp "$work/src/$f" "$out/"
done
if [ -x "$out/llama-server" ]; then
	echo "$out/llama-server"
	exit 0
fi
[ -n "$find_only" ] && not_built
if [ -n "$vulkan" ] && [ ! -f "$hdr/usr/include/vulkan/vulkan.hpp" ]; then
	# Debian 13's headers, from the mirror the machine already uses, with a
	# private apt state (the system's sources and lists stay as they are).
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	mkdir -p "$t/lists/partial" "$t/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$t/sources.list"
	o=(-o Dir::State::Lists="$t/lists" -o Dir::Etc::SourceList="$t/sources.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::Cache="$t/cache" -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o APT::Sandbox::User=root)
	apt-get "${o[@]}" update -qq
	(cd "$t" && apt-get "${o[@]}" download libvulkan-dev=1.4.309.0-1 spirv-headers=1.6.1+1.4.309.0-1 >/dev/null)
	rm -rf "$hdr.tmp"
	for d in "$t"/*.deb; do dpkg-deb -x "$d" "$hdr.tmp"; done
	rm -rf "$hdr" && mv "$hdr.tmp" "$hdr"
fi
build=$work/build-$key
# shellcheck disable=SC2086
nice -n 19 cmake -S "$work/src" -B "$build" $FLAGS >"$work/cmake-$key.log" 2>&1
nice -n 19 cmake --build "$build" --target llama-server -j "${JOBS:-2}" >>"$work/cmake-$key.log" 2>&1 || {
	echo "the $name build failed; its log: $work/cmake-$key.log" >&2
	tail -20 "$work/cmake-$key.log" >&2
	exit 1
}
strip -o "$out/llama-server.tmp" "$build/bin/llama-server"
mv "$out/llama-server.tmp" "$out/llama-server"
echo "$out/llama-server"
