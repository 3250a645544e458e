#!/usr/bin/env bash
# The test command: static checks, the unit tests (race detector on), the
# committed corpus re-checked, the conformance suite on every fabric present
# with its reports, and a quick benchmark run to keep it working. Set
# WAIOPS_REQUIRE_GPU=1 to make a missing GL context a failure (CI does; any
# value but empty or 0 counts, as gpu.Required reads it).
set -euo pipefail
cd "$(dirname "$0")/.."
# The exit trap stops only the X server setup.sh starts here, not a caller's.
unset WAIOPS_XVFB_PID
. scripts/setup.sh
out=$(mktemp -d)
trap 'rm -rf "$out"; [ -z "${WAIOPS_XVFB_PID:-}" ] || kill "$WAIOPS_XVFB_PID" 2>/dev/null || true' EXIT

echo "== gofmt, go vet, CPU-only build"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; exit 1; fi
go vet ./...
CGO_ENABLED=0 go build -o /dev/null ./cmd/waiops

echo "== go test -race"
go test -race -count=1 ./...

echo "== the chunk-tree root at 65,536 pieces for g 1 to 4, and the dot kernels' 10^5-case suites (too slow under -race)"
go test -count=1 -run '^TestRootLargeEnd$' ./carriage/tree
go test -count=1 ./cpuref/dot

echo "== decoder without cgo: its examples decode the demo set on the CPU reference"
WAIOPS_REQUIRE_GPU=0 CGO_ENABLED=0 go test -count=1 ./decoder # no GL in this build, by design

echo "== pure-Go kernels (-tags purego): the CPU fabric without its assembly"
go vet -tags purego ./cpuref/...
go test -tags purego -count=1 ./cpuref/...
go run -tags purego ./cmd/waiops conform --fabric cpu

echo "== fuzz, briefly (seed corpora ran above as plain tests)"
# Every target 5 s (scripts/fuzz.sh finds them); the corpus stays in GOCACHE.
FUZZ_KEEP=0 scripts/fuzz.sh 5s

echo "== corpus: vectors check"
go build -o "$out/waiops" ./cmd/waiops
"$out/waiops" vectors check vectors
bash scripts/use-from-go.sh # the README's "Use it from Go" as written
SMALL=1 WAIOPS_BIN="$out/waiops" scripts/carriage-load.sh

echo "== bench --quick (keeps it working; asserts outputs equal across fabrics, not speed)"
"$out/waiops" bench --quick --out "$out/bench"

echo "== conformance"
"$out/waiops" conform --fabric cpu --report "$out/conformance/cpu"
if [ "${WAIOPS_REQUIRE_GPU:-0}" != 0 ] || [ -n "${DISPLAY:-}" ]; then
  "$out/waiops" conform --fabric hybrid --report "$out/conformance/hybrid"
  "$out/waiops" conform --fabric gpu --report "$out/conformance/gpu"
fi

echo "== the README's first command on its CPU-only path (a user without root)"
WAIOPS_CPU_ONLY=1 bash scripts/conform.sh "$out/conform-first" 2>&1 | tail -n 3

echo "== EGL context, no display (-tags egl)"
env -u DISPLAY go test -tags egl -count=1 ./gpu
env -u DISPLAY go run -tags egl ./cmd/waiops conform --fabric gpu

echo "== the CPU fabric on arm64, riscv64 and s390x (big-endian), under qemu-user"
# CGO_ENABLED=0 builds (no GL); WAIOPS_EMULATION puts the emulator in each
# report's fabric identity beside goarch. Then the matrix of every report.
for arch in arm64 riscv64 s390x; do
  q=qemu-$arch-static
  [ "$arch" = arm64 ] && q=qemu-aarch64-static
  CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -o "$out/waiops-$arch" ./cmd/waiops
  WAIOPS_EMULATION="qemu-user ($q)" "$q" "$out/waiops-$arch" conform --fabric cpu --report "$out/conformance/cpu-$arch-qemu"
done
"$out/waiops" conform matrix "$out/conformance"
