#!/usr/bin/env bash
# Checks the README's "Use it from Go" section as a newcomer would follow it:
# a throwaway module outside the repository, the README's program (the Go
# block between the use-from-go markers, so the README cannot drift from
# what is tested), a require and a replace naming this clone, go mod tidy,
# then a CGO_ENABLED=0 run that decodes the demo set, and a check that the
# PNG it writes is docs/demo.png byte for byte. Needs no network when the
# module cache holds this module's dependencies (it does after go build).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mod="$tmp/mydecode"
mkdir "$mod"
awk '/<!-- use-from-go:begin -->/{on=1; next} /<!-- use-from-go:end -->/{on=0} on' "$repo/README.md" |
  sed '/^```/d' >"$mod/main.go"
if ! grep -q '^package main' "$mod/main.go"; then
  echo "use-from-go: README.md has no Go block between the use-from-go markers" >&2
  exit 1
fi
cd "$mod"
# The README's commands, with /path/to/waiops this clone.
go mod init example.com/mydecode >/dev/null 2>&1
go mod edit -require=github.com/waiops/waiops@v0.0.0 -replace=github.com/waiops/waiops="$repo"
GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || GOFLAGS=-mod=mod go mod tidy
go build -o /dev/null .
CGO_ENABLED=0 go run . "$repo/examples/demo" "$tmp/demo.png" 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
# The picture must be the README's, byte for byte (docs/demo.png).
if ! cmp -s "$tmp/demo.png" "$repo/docs/demo.png"; then
  echo "use-from-go: the README's program wrote a picture other than docs/demo.png" >&2
  exit 1
fi
echo "use-from-go: the README's program builds against this clone and decodes the demo set to docs/demo.png"
