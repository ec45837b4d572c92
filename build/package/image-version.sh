#!/usr/bin/env bash
# Prints the Debian version of the rehome-sandbox-image package for the
# sandbox recipe in this tree: <n>+<tag>, where tag is the recipe digest's
# first 12 hex digits (the image tag rehome looks for) and n counts the
# commits that changed the recipe, so a newer recipe sorts higher.
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=$(go run ./build/package/recipetag)
n=$(git rev-list --count HEAD -- sandbox/recipe build/sandbox 2>/dev/null || echo 0)
if [ -n "$(git status --porcelain -- sandbox/recipe build/sandbox 2>/dev/null)" ]; then n=$((n + 1)); fi
echo "$n+$tag"
