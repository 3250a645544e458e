#!/usr/bin/env bash
# carriage-load.sh: the load and fault tests of `waiops prior serve`
# on loopback: 200 slow clients, 20 and 500 concurrent dcz requests each
# against a cold server, 300 idle keep-alives, 50 clients that never read,
# 10,000 sequential requests, and a server killed mid-response (a tree fetch
# from two servers, a plain fetch tried again once the server is back). For
# each it prints the server's RSS and open descriptors before, at peak and
# after, and latency percentiles, and fails when a response is wrong, RSS
# passes the configured bounds (--coding-bytes + --cache-bytes + 128 MiB
# over the server's own start) or descriptors do not come back down.
#
# SIZE_MIB sets the pair's size (default 100); SMALL=1 runs the size CI
# runs (a 4 MiB pair, fewer clients: well under a minute). WAIOPS_BIN names
# a built waiops to use instead of building one. Linux only (/proc).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/carriage-load.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "${WAIOPS_BIN:-}" ]; then
	cp "$WAIOPS_BIN" "$tmp/waiops"
else
	go build -o "$tmp/waiops" ./cmd/waiops
fi
go build -o "$tmp/load" ./carriage/serve/internal/load
if [ "${SMALL:-0}" != 0 ]; then
	exec "$tmp/load" -waiops "$tmp/waiops" -mib 4 -slow 50 -slow-bytes 1048576 -dcz 20,100 -idle 100 -stall 20 -seq 2000 \
		-write-idle 1s -idle-timeout 1s
fi
"$tmp/load" -waiops "$tmp/waiops" -mib "${SIZE_MIB:-100}"
