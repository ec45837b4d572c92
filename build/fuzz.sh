#!/bin/bash
# Runs each of rehome's fuzz tests (Go's native fuzzing) for a fixed
# budget: FUZZTIME each (default 10s), one after another. Each parser of
# outside bytes rehome owns or calls has one (docs/security.md, "Bounds").
# A failure leaves its input under the package's testdata/fuzz/ and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
TAGS="remote,exclude_graphdriver_btrfs,btrfs_noversion,exclude_graphdriver_devicemapper,containers_image_openpgp"
FUZZTIME=${FUZZTIME:-10s}
# Go minimizes each new input it finds for up to a minute by default, and
# counts that against FUZZTIME: from a seed of tens of KB (a real export)
# that ate the whole budget (FuzzExport: 115 inputs run in 10 s with 1 s
# of minimizing each, 9,115 with 100 runs each).
FUZZMINIMIZE=${FUZZMINIMIZE:-100x}
fuzzers=(
  "./backend/models FuzzGGUFHeader"
  "./backend/knowledge FuzzParseText"
  "./backend/knowledge FuzzIndentJSON"
  "./backend/llm FuzzReadSSE"
  "./backend/actions FuzzParseSchema"
  "./backend/assistant FuzzReadBundle"
  "./backend/assistant FuzzImportGPT"
  "./backend/chatgptexport FuzzExport"
  "./backend/dataset FuzzPeek"
  "./backend/browse FuzzZIMHeader"
  "./backend/browse FuzzKiwixAnswers"
  "./backend/browse FuzzSearchEngines"
  "./backend/browse FuzzReaderHTML"
  "./backend/mcphost FuzzParseHostConfig"
  "./sandbox FuzzDemux"
  "./sandbox FuzzDecoder"
)
# Go 1.26's coordinator can fail a run at the end of -fuzztime with a bare
# "context deadline exceeded" and no input written (go.dev/issue/75804,
# fixed in Go 1.27): that run is retried, up to twice; a run that wrote a
# failing input never is.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for f in "${fuzzers[@]}"; do
  set -- $f
  for try in 1 2 3; do
    echo "fuzz $1 $2 ($FUZZTIME)"
    if go test -tags "$TAGS" -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZE" -parallel 2 "$1" 2>&1 | tee "$log"; then
      break
    fi
    if [ "$try" = 3 ] || grep -q "Failing input written" "$log" || ! grep -q "context deadline exceeded" "$log"; then
      exit 1
    fi
    echo "fuzz $2: Go's deadline race (go.dev/issue/75804), no input failed: again"
  done
done
