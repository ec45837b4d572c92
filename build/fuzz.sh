#!/bin/bash
# Runs each of rehome's fuzz tests (Go's native fuzzing) for a fixed
# budget: FUZZTIME each (default 10s), one after another. Each parser of
# outside bytes rehome owns or calls has one (docs/security.md, "Bounds").
# A failure leaves its input under the package's testdata/fuzz/ and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
TAGS="remote,exclude_graphdriver_btrfs,btrfs_noversion,exclude_graphdriver_devicemapper,containers_image_openpgp"
FUZZTIME=${FUZZTIME:-10s}
fuzzers=(
  "./backend/models FuzzGGUFHeader"
  "./backend/knowledge FuzzParseText"
  "./backend/knowledge FuzzIndentJSON"
  "./backend/llm FuzzReadSSE"
  "./backend/actions FuzzParseSchema"
  "./backend/assistant FuzzReadBundle"
  "./backend/dataset FuzzPeek"
  "./sandbox FuzzDemux"
)
for f in "${fuzzers[@]}"; do
  set -- $f
  echo "fuzz $1 $2 ($FUZZTIME)"
  go test -tags "$TAGS" -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" -parallel 2 "$1"
done
