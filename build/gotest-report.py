#!/usr/bin/env python3
"""Reads `go test -json` on stdin and prints what a person needs: each
package's ok/FAIL line, the full output of every failed test, and at the
end every skipped test with its reason, so a skip is never read as a pass.
Exits 1 when anything failed. The raw events go to the file named by the
first argument, if any."""
import json, sys

raw = open(sys.argv[1], "w") if len(sys.argv) > 1 else None
out = {}      # (pkg, test) -> output lines
skips = []    # (pkg, test, reason)
failed = False
for line in sys.stdin:
    if raw:
        raw.write(line)
    try:
        ev = json.loads(line)
    except ValueError:
        sys.stdout.write(line)  # a build error is plain text
        failed = True
        continue
    pkg, test, action = ev.get("Package", ""), ev.get("Test"), ev.get("Action")
    key = (pkg, test)
    if action == "build-output":  # Go 1.24+: compiler errors as events
        sys.stdout.write(ev.get("Output", ""))
        continue
    if action == "build-fail":
        failed = True
        continue
    if action == "output":
        out.setdefault(key, []).append(ev.get("Output", ""))
    elif action == "skip" and test:
        lines = [l.strip() for l in out.get(key, []) if not l.startswith(("=== ", "--- SKIP"))]
        skips.append((pkg, test, " ".join(lines)[:300]))
    elif action == "fail":
        failed = True
        if test:
            sys.stdout.write("".join(out.get(key, [])))
        else:
            # the package's own lines: FAIL, panics, build failures
            sys.stdout.write("".join(l for l in out.get(key, []) if not l.startswith(("=== ", "--- ", "PASS"))))
    elif action == "pass" and not test:
        print(f"ok   {pkg}\t{ev.get('Elapsed', 0):.1f}s")
    if action in ("pass", "skip") and test:
        out.pop(key, None)
    sys.stdout.flush()
if skips:
    print(f"\nskipped ({len(skips)}), not passed:")
    for pkg, test, why in skips:
        print(f"  {test} ({pkg.removeprefix('rehome/') or pkg}): {why}")
sys.exit(1 if failed else 0)
