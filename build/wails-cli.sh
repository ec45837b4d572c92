#!/usr/bin/env bash
# build/wails-cli.sh — installs the Wails v2.9.2 CLI into $(go env GOPATH)/bin
# for `wails dev` and `wails build` (README: With the Wails CLI). Not needed
# for `make build`.
#
# `go install github.com/wailsapp/wails/v2/cmd/wails@v2.9.2` gives a CLI whose
# golang.org/x/tools (v0.17) cannot read the packages of the Go this project
# uses ("internal error: package … without types"), and it does not build
# with a recent Go at all. This builds the same CLI with a current x/tools,
# with the Go that go.mod names.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cat >go.mod <<'MOD'
module wailscli

go 1.24
MOD
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/wailsapp/wails/v2/cmd/wails"\n' >tools.go
export GOFLAGS=-mod=mod
go get github.com/wailsapp/wails/v2/cmd/wails@v2.9.2 golang.org/x/tools@latest
out="$(go env GOPATH)/bin/wails"
go build -o "$out" github.com/wailsapp/wails/v2/cmd/wails
echo "installed $out ($("$out" version))"
