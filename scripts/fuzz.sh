#!/usr/bin/env bash
# scripts/fuzz.sh [DURATION] [PACKAGE...]: runs every fuzz target of the
# packages (default: every package with one) for DURATION each (a go test
# -fuzztime value; default 1m), keeps the corpus entries the runs found under
# each package's testdata/fuzz/<target>/, and prints a table of targets,
# execs and findings. A finding is a failing input: go test writes it to
# testdata/fuzz/<target>/ itself, and it runs from then on as a regression
# test in the plain `go test`. The exit status is 1 when any target found one.
#
# Environment:
#   FUZZ_MINIMIZE  -fuzzminimizetime (default 5s: minimising an input of the
#                  lowering targets, a lowering and a decode per exec, for
#                  go's default 60 s leaves a short run with no execs)
#   FUZZ_PARALLEL  -parallel, the fuzzing workers (default: go's, GOMAXPROCS)
#   FUZZ_KEEP      0 to leave the corpus found in GOCACHE only (CI does)
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-1m}
shift || true
minimize=${FUZZ_MINIMIZE:-5s}
keep=${FUZZ_KEEP:-1}
parallel=()
[ -z "${FUZZ_PARALLEL:-}" ] || parallel=(-parallel "$FUZZ_PARALLEL")

if [ $# -gt 0 ]; then
  pkgs=("$@")
else
  # Packages with a test file that declares a fuzz target; go test -list
  # then says which targets each really has.
  mapfile -t pkgs < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' |
    xargs -n1 dirname | sort -u | sed 's|^|./|')
fi
cache=$(go env GOCACHE)/fuzz
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rows=()
found=0
for pkg in "${pkgs[@]}"; do
  mapfile -t targets < <(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true)
  importpath=$(go list "$pkg")
  for t in "${targets[@]}"; do
    status=ok
    go test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$duration" \
      -fuzzminimizetime "$minimize" "${parallel[@]}" >"$log" 2>&1 || status=fail
    execs=$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*' || true)
    findings=0
    if [ "$status" = fail ]; then
      findings=$(grep -c 'Failing input written to' "$log" || true)
      if [ "$findings" = 0 ] && grep -q '^    context deadline exceeded$' "$log"; then
        # Go's coordinator can report the -fuzztime deadline itself as a
        # failure when a worker is mid-exec (go.dev/issue/75804): no input
        # failed, so it is no finding.
        findings="0 (deadline race)"
      else
        [ "$findings" -gt 0 ] || findings="error"
        found=1
        echo "== $pkg $t failed:" >&2
        tail -n 30 "$log" >&2
      fi
    fi
    if [ "$keep" != 0 ] && [ -d "$cache/$importpath/$t" ]; then
      mkdir -p "$pkg/testdata/fuzz/$t"
      cp -n "$cache/$importpath/$t"/* "$pkg/testdata/fuzz/$t/" 2>/dev/null || true
    fi
    rows+=("$(printf '%-18s %-22s %12s  %s' "${pkg#./}" "$t" "${execs:-0}" "$findings")")
  done
done
printf '%-18s %-22s %12s  %s\n' package target execs findings
printf '%s\n' "${rows[@]}"
exit "$found"
