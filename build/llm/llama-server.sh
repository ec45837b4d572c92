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
#
# Beside the binary it keeps the two files of the source that the tests'
# tiny model is made from (internal/testsupport/tinymodel): the Qwen2 vocabulary
# (models/ggml-vocab-qwen2.gguf) and the Qwen2.5 chat template.
#
# Needs: npm (once, for the package), cmake, g++. About 8 minutes on 2 cores.
set -euo pipefail
find_only=
[ "${1:-}" = --find ] && find_only=1
PKG=node-llama-cpp@3.21.1
CACHE=${REHOME_CACHE:-/var/cache/rehome}
FLAGS="-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
work=$CACHE/llama
not_built() {
	echo "llama-server is not built: run build/llm/llama-server.sh (about 8 minutes on 2 cores)" >&2
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
out=$CACHE/llama-server-$commit-$key
mkdir -p "$out"
for f in models/ggml-vocab-qwen2.gguf models/templates/Qwen-Qwen2.5-7B-Instruct.jinja; do
	[ -f "$out/$(basename "$f")" ] || cp "$work/src/$f" "$out/"
done
if [ -x "$out/llama-server" ]; then
	echo "$out/llama-server"
	exit 0
fi
[ -n "$find_only" ] && not_built
build=$work/build-$key
# shellcheck disable=SC2086
nice -n 19 cmake -S "$work/src" -B "$build" $FLAGS >"$work/cmake-$key.log" 2>&1
nice -n 19 cmake --build "$build" --target llama-server -j "${JOBS:-2}" >>"$work/cmake-$key.log" 2>&1
strip -o "$out/llama-server.tmp" "$build/bin/llama-server"
mv "$out/llama-server.tmp" "$out/llama-server"
echo "$out/llama-server"
