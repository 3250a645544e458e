#!/usr/bin/env bash
# carriage-speed.sh: the fetch-speed figure against curl. Serves a set (256 MiB
# unless SIZE_MIB says otherwise) from two nginx servers on loopback (two
# `waiops prior serve` where nginx is not installed), then, in the same run
# and interleaved REPS times (default 5), fetches it with `curl -o` into a
# file, with `waiops prior fetch` from one server and with `waiops prior
# fetch-tree` from both, once per piece size in GS (default "10 6": pieces
# of 1 MiB and 64 KiB, 1024 · 2^g bytes). It prints each one's median MiB/s,
# its ratio to curl's median, its median CPU seconds (user + system: on a
# machine whose cores are all busy, the wall time follows them) and its peak
# RSS (/usr/bin/time). The machine is shared: only the ratios in one run
# mean anything. WAIOPS_BIN names a built waiops to use instead of building
# one; BASE_BIN, another (an older build, say) whose fetches run beside,
# named base-*. Everything lives in a temporary directory, removed at the
# end.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${SIZE_MIB:-256}
reps=${REPS:-5}
gs=${GS:-10 6}
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
bins=(waiops)
if [ -n "${BASE_BIN:-}" ]; then
	cp "$BASE_BIN" "$tmp/base"
	bins+=(base)
fi
head -c $((size_mib << 20)) /dev/urandom >"$tmp/set"
inner=$(sha256sum "$tmp/set" | cut -d' ' -f1)
for g in $gs; do "$tmp/waiops" prior tree --g "$g" "$tmp/set" "$tmp/set-$g.wtr1"; done
mkdir -p "$tmp/a" "$tmp/b"
cp "$tmp/set" "$tmp/a/$inner"
mv "$tmp/set" "$tmp/b/$inner"

roots=()
if command -v nginx >/dev/null; then
	server=nginx
	ports=()
	for _ in a b; do
		ports+=("$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')")
	done
	cat >"$tmp/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/nginx.err;
events { worker_connections 256; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	client_body_temp_path $tmp/nginx-body;
	proxy_temp_path $tmp/nginx-proxy;
	fastcgi_temp_path $tmp/nginx-fastcgi;
	uwsgi_temp_path $tmp/nginx-uwsgi;
	scgi_temp_path $tmp/nginx-scgi;
	default_type application/octet-stream;
	server { listen 127.0.0.1:${ports[0]}; location /.well-known/wai-sets/ { alias $tmp/a/; } }
	server { listen 127.0.0.1:${ports[1]}; location /.well-known/wai-sets/ { alias $tmp/b/; } }
}
EOF
	nginx -c "$tmp/nginx.conf" -p "$tmp" &
	pids+=($!)
	for p in "${ports[@]}"; do
		for _ in $(seq 100); do
			curl -sf -o /dev/null "http://127.0.0.1:$p/.well-known/wai-sets/$inner" -r 0-0 && break
			sleep 0.1
		done
		roots+=("http://127.0.0.1:$p/.well-known/wai-sets/")
	done
else
	server="waiops prior serve"
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
fi

# timed NAME CMD...: runs CMD under /usr/bin/time, appending "NAME seconds
# rss_kib cpu_seconds" to $tmp/runs; the sink is emptied after each run.
# The wall time comes from date's nanoseconds (time's %e has 10 ms steps,
# a twentieth of a 256 MiB fetch on loopback).
timed() {
	local name=$1 t0 t1
	shift
	mkdir -p "$tmp/sink"
	t0=$(date +%s%N)
	/usr/bin/time -f '%M %U %S' -o "$tmp/time" "$@" >"$tmp/out"
	t1=$(date +%s%N)
	echo "$name $(awk -v ns=$((t1 - t0)) '{print ns / 1e9, $1, $2 + $3}' "$tmp/time")" >>"$tmp/runs"
	rm -rf "$tmp/sink" "$tmp/curl.out"
}

: >"$tmp/runs"
curl -s -o /dev/null "${roots[0]}$inner" # warm the page cache of both copies
curl -s -o /dev/null "${roots[1]}$inner"
for _ in $(seq "$reps"); do
	timed curl curl -s -o "$tmp/curl.out" "${roots[0]}$inner"
	for bin in "${bins[@]}"; do
		pre=${bin#waiops}
		pre=${pre:+$pre-}
		timed "${pre}fetch" "$tmp/$bin" prior fetch "$inner" --store "$tmp/sink" --root "${roots[0]}"
		grep -q "^held $inner$" "$tmp/out"
		for g in $gs; do
			timed "${pre}fetch-tree-g$g" "$tmp/$bin" prior fetch-tree "$tmp/set-$g.wtr1" \
				--store "$tmp/sink" --source "${roots[0]}" --source "${roots[1]}"
			grep -q "^held $inner$" "$tmp/out"
		done
	done
done

echo "set: $size_mib MiB from $server on loopback, $reps runs each, interleaved; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs"
# median NAME FIELD: the median of FIELD over NAME's runs.
median() {
	awk -v x="$1" -v f="$2" '$1 == x {print $f}' "$tmp/runs" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
curl_med=$(median curl 2)
curl_cpu=$(median curl 4)
for name in $(awk '!seen[$1]++ {print $1}' "$tmp/runs"); do
	awk -v x="$name" -v s="$(median "$name" 2)" -v c="$(median "$name" 4)" -v cs="$curl_med" -v cc="$curl_cpu" -v mib="$size_mib" \
		-v rss="$(awk -v x="$name" '$1 == x && $3 > m {m = $3} END {print m}' "$tmp/runs")" 'BEGIN {
		printf "%-20s median %6.3f s  %7.1f MiB/s  %.2f x curl   CPU %5.2f s (%.2f x curl)   peak RSS %6.1f MiB\n", x, s, mib / s, cs / s, c, c / cc, rss / 1024
	}'
done
