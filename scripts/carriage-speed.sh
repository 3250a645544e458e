#!/usr/bin/env bash
# carriage-speed.sh: issue 15's speed figure. Fetches a set (256 MiB unless
# SIZE_MIB says otherwise) by range from two local `waiops prior serve`
# servers with `waiops prior fetch-tree`, and the same file whole from one of
# them with plain curl, in the same run; prints MB/s for each and the tree
# fetch's peak RSS (/usr/bin/time -v). G sets the piece size, 1024 · 2^G
# bytes (default 8: 256 KiB pieces); WAIOPS_BIN names a built waiops to
# use instead of building one. Everything lives in a temporary
# directory, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${SIZE_MIB:-256}
g=${G:-8}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/carriage-speed.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ -n "${WAIOPS_BIN:-}" ]; then
	cp "$WAIOPS_BIN" "$tmp/waiops"
else
	go build -o "$tmp/waiops" ./cmd/waiops
fi
head -c $((size_mib << 20)) /dev/urandom >"$tmp/set"
"$tmp/waiops" prior tree --g "$g" "$tmp/set" "$tmp/set.wtr1"
inner=$(sha256sum "$tmp/set" | cut -d' ' -f1)
mkdir -p "$tmp/a" "$tmp/b" "$tmp/sink"
cp "$tmp/set" "$tmp/a/$inner"
mv "$tmp/set" "$tmp/b/$inner"

roots=()
for s in a b; do
	"$tmp/waiops" prior serve "$tmp/$s" >"$tmp/$s.out" &
	pids+=($!)
done
for s in a b; do
	for _ in $(seq 100); do
		grep -q '^serving ' "$tmp/$s.out" 2>/dev/null && break
		sleep 0.1
	done
	roots+=("$(sed -n 's/^serving //p' "$tmp/$s.out")")
done

# Plain curl of the whole file from one server (warm page cache for both).
curl_out=$(curl -s -o /dev/null -w '%{time_total} %{size_download}' "${roots[0]}$inner")
read -r curl_s curl_bytes <<<"$curl_out"
# The same curl writing the file beside the store: the transfer and the
# write a sink makes, without the checks (BLAKE3 per piece, then SHA-256).
curl_file_s=$(curl -s -o "$tmp/curl.out" -w '%{time_total}' "${roots[0]}$inner")
rm -f "$tmp/curl.out"

/usr/bin/time -v -o "$tmp/time" "$tmp/waiops" prior fetch-tree "$tmp/set.wtr1" \
	--store "$tmp/sink" --source "${roots[0]}" --source "${roots[1]}" >"$tmp/fetch.out"
grep -q "^held $inner$" "$tmp/fetch.out"
tree_s=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$tmp/time")
rss_kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")

awk -v b="$curl_bytes" -v cs="$curl_s" -v cf="$curl_file_s" -v ts="$tree_s" -v rss="$rss_kib" -v mib="$size_mib" -v g="$g" 'BEGIN {
	printf "set: %d MiB, pieces of %d KiB\n", mib, 2 ^ g
	printf "curl, one server:        %.3f s  %.1f MB/s\n", cs, b / cs / 1e6
	printf "curl to a file:          %.3f s  %.1f MB/s\n", cf, b / cf / 1e6
	printf "fetch-tree, two servers: %.3f s  %.1f MB/s\n", ts, b / ts / 1e6
	printf "fetch-tree peak RSS:     %.1f MiB\n", rss / 1024
}'
