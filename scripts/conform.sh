#!/usr/bin/env bash
# The README's first command: the §14 conformance suite on every fabric this
# machine has, each with its report under conformance/<fabric>/ (or under
# the directory given as the first argument).
#
# As root on a fresh Debian machine it installs what the GL fabric needs
# (scripts/setup.sh) and runs every fabric. As a user without root, when the
# C compiler or the X11/GL headers the GL build needs are missing, it names
# the packages to install and still runs the CPU fabric, through a
# CGO_ENABLED=0 build that needs none of them. WAIOPS_CPU_ONLY=1 takes that
# path on purpose.
set -euo pipefail
# A report directory given relative is the caller's; the default is the
# repository's conformance/.
report=${1:-}
case $report in
  "") ;;
  /*) ;;
  *) report="$PWD/$report" ;;
esac
cd "$(dirname "$0")/.."
# The exit trap stops only the X server setup.sh starts here, not a caller's.
unset WAIOPS_XVFB_PID
. scripts/setup.sh
bin=$(mktemp -d)
trap 'rm -rf "$bin"; [ -z "${WAIOPS_XVFB_PID:-}" ] || kill "$WAIOPS_XVFB_PID" 2>/dev/null || true' EXIT
report=${report:-conformance}
# The packages setup.sh could not install (it ran without root) that the GL
# build itself needs: the C compiler and the -dev headers. Others it names
# (qemu, xdotool, ...) are for the tests, not for this suite.
gl_missing=""
# shellcheck disable=SC2086 # one word a package
for p in ${missing:-}; do
  case $p in gcc | libc6-dev | *-dev) gl_missing="$gl_missing $p" ;; esac
done

# cpu_only says why the GL fabric is left out and what to install for it,
# then runs the CPU fabric from a build that needs no C compiler or headers.
cpu_only() {
  echo "conform: $1; running the CPU fabric alone (a CGO_ENABLED=0 build)" >&2
  if [ -n "$gl_missing" ]; then
    echo "conform: for the GL fabric too, install as root:$gl_missing (or run this script as root)" >&2
  fi
  CGO_ENABLED=0 go build -o "$bin/waiops" ./cmd/waiops
  "$bin/waiops" conform --fabric cpu --report "$report/cpu"
}

if [ -n "${WAIOPS_CPU_ONLY:-}" ]; then
  cpu_only "WAIOPS_CPU_ONLY is set"
elif [ -n "$gl_missing" ]; then
  cpu_only "packages the GL build needs are missing"
elif ! go build -o "$bin/waiops" ./cmd/waiops 2>"$bin/build.log"; then
  grep -m1 -E 'fatal error|error:' "$bin/build.log" >&2 || tail -n 3 "$bin/build.log" >&2
  cpu_only "the GL build failed (the line above says why)"
else
  # Every fabric present: cpu always, gpu when a GL 4.3 context can be
  # made (a note says why when it cannot).
  "$bin/waiops" conform --fabric all --report "$report"
fi
