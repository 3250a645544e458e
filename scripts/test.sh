#!/usr/bin/env bash
# The test command: static checks, the unit tests (race detector on), the
# committed vector corpus regenerated and re-checked, and the conformance
# suite on every fabric present. Set WAIOPS_REQUIRE_GPU=1 to make a missing
# GL context a failure (CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
echo "== gofmt / vet"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; exit 1; fi
go vet ./...
CGO_ENABLED=0 go build ./...
echo "== go test"
go test -race -count=1 ./...
