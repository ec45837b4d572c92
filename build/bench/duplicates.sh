#!/bin/bash
# Repeated code in the product (docs/architecture.md, "The import graph,
# measured"): copies the files git lists of a checkout (tracked, and
# untracked ones it does not ignore), without tests (*_test.go, *.test.ts,
# frontend/e2e/) and internal/testsupport/, and runs the tool library's
# `duplicates` over the copy. With --logic, each Go file's import block and
# the bodies of its struct declarations are blanked first (declarations,
# not code).
#
#   build/bench/duplicates.sh [--logic] [CHECKOUT]   (default: this one)
set -euo pipefail
logic=0
[ "${1:-}" = --logic ] && { logic=1; shift; }
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
command -v duplicates >/dev/null || { echo "duplicates (the tool library's command) is not on PATH" >&2; exit 2; }
dst=$(mktemp -d); trap 'rm -rf "$dst"' EXIT
cd "$src"
git ls-files -co --exclude-standard | grep -v -e '_test\.go$' -e '\.test\.ts$' -e '^internal/testsupport/' -e '^frontend/e2e/' |
	while read -r f; do [ -f "$f" ] && mkdir -p "$dst/$(dirname "$f")" && cp "$f" "$dst/$f"; done
if [ $logic = 1 ]; then
	find "$dst" -name '*.go' -print0 | xargs -0 python3 -c '
import re, sys
for p in sys.argv[1:]:
    out, kind, depth = [], None, 0
    for l in open(p, encoding="utf-8", errors="replace").read().split("\n"):
        s = l.strip()
        if kind is None:
            if s.startswith("import ("): kind = "i"; out.append(""); continue
            if re.match(r"^(type\s+)?\w+\s+struct\s*\{\s*$", s): kind, depth = "s", 1
            out.append(l)
        elif kind == "i":
            out.append("")
            if s == ")": kind = None
        else:
            depth += l.count("{") - l.count("}")
            if depth <= 0: out.append(l); kind = None
            else: out.append("")
    open(p, "w").write("\n".join(out))
'
fi
cd "$dst" && duplicates --most 200 --seconds 120
