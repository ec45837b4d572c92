#!/usr/bin/env bash
# Prints rehome's Debian package version, derived from git:
#   tag v1.2.3, 4 commits after it, at abc1234 -> 1.2.3+4.gabc1234
#   no tag: 0.1.0~<commits>.g<hash>  (~ sorts before the 0.1.0 release)
#   uncommitted changes add +dirty.
# Every part is valid in a Debian version, and later commits sort higher
# (dpkg compares the commit count as a number), so upgrades go forward.
set -euo pipefail
# make package computes it once and passes it down, so that every step of one
# build agrees even if the tree changes meanwhile.
if [ -n "${REHOME_VERSION:-}" ]; then echo "$REHOME_VERSION"; exit 0; fi
cd "$(dirname "$0")/../.."
base=0.1.0
if desc=$(git describe --tags --long --match 'v[0-9]*' 2>/dev/null); then
  # v1.2.3-4-gabc1234
  tag=${desc%-*-g*}; rest=${desc#"$tag"-}; n=${rest%%-*}; h=${rest#*-g}
  v="${tag#v}+$n.g$h"
elif n=$(git rev-list --count HEAD 2>/dev/null); then
  v="$base~$n.g$(git rev-parse --short=7 HEAD)"
else
  v="$base~0.nogit"
fi
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then v="$v+dirty"; fi
echo "$v"
