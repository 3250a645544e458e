#!/usr/bin/env bash
# scripts/device-h200.sh: the one prepared run on the device machine
# (whichever kind the `run` tool lends: an NVIDIA H100 or H200; the run
# names it in run.log and gpuinfo.json), and the same run here.
#
#   scripts/device-h200.sh --build   here: build .device/waiops (linux/amd64,
#                                    -tags egl) and fetch the GL loader .debs
#                                    into .device/debs; the run call carries
#                                    .device
#   scripts/device-h200.sh           on the device, from the carried working
#                                    tree: writes everything under $OUT
#   scripts/device-h200.sh --local   here, on Mesa's llvmpipe through EGL with
#                                    no display, smaller sizes, the torch peer
#                                    skipped where torch is absent; output in
#                                    /tmp/waiops-local/out (or $OUT when set)
#   --total SECONDS                  the whole run's time (default 330, local 900)
#
# Steps, each under `timeout` and inside the whole run's time, each logged,
# the figures asked for first:
#   env             uname, CPUs, ldd, nvidia-smi clocks
#   gpuinfo         `waiops gpu info`: GL identity, limits, features
#   conform         `waiops conform --fabric gpu`, report JSON + HTML
#   conform-hybrid  the acc64 corpus split between the GPU and the CPU
#   bench-large     GL fabric with its time split: conv 3x3 64→64 (with rq and
#                   clamp, and as raw sums) at 256 and 512, conv_transpose, igdn
#   bench-net       whole networks on the CPU and GL fabrics in one run (equal
#                   outputs, GPU/CPU ratios, GL time split with host ns per
#                   element and the device memory a loaded graph holds):
#                   graph_synth4 from 4 (the llvmpipe case of docs/bench/gpu-design), 16 and 32
#                   (256² and 512² output), bmshj2018 from 2×3 and 4×6 (the
#                   same cases) and its 32×48 latent (768×512); their float
#                   twins for the torch step
#   bench-net-hybrid  the same networks on the hybrid fabric
#   bench-1024      the same at 1024×1024 (conv_transpose left out: its output
#                   would pass 2^26 elements), apart so that a slow kernel
#                   there keeps the figures above
#   bench-cpu       the CPU reference on the large convs, for GPU/CPU ratios
#   torch           cuDNN fp32, TF32, fp16 on the raw-sum conv's data and on
#                   each network's float twin, CUDA events, ratios to ours
#   bench           every fabric present: the standard sweep, int_synth, world
#   env-after       clocks after load
# and beside them logs/clocks.csv, the SM clock, load and power each second.
# One step failing leaves the others' output. After every step the results
# are packed again, so a run cut short still brings back what it made: $OUT
# holds summary.txt (each step's exit status and seconds), results.tar.gz
# (everything but the peer data, which any run makes again), and copies of
# gpuinfo.json, bench-large.md, bench-net.md, bench-1024.md, torch_peer.md
# and run.log (the device's `run` brings back at most 8 files, 2 folders
# down).
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
carry=.device
mode=device
total=
while [ $# -gt 0 ]; do
	case $1 in
	--build) mode=build ;;
	--local) mode=local ;;
	--total)
		total=$2
		shift
		;;
	*)
		echo "usage: scripts/device-h200.sh [--build | --local] [--total SECONDS]" >&2
		exit 2
		;;
	esac
	shift
done

if [ "$mode" = build ]; then
	set -e
	mkdir -p "$carry/debs"
	# -s -w: no symbol tables, so the carried tree stays well under 64 MiB.
	GOOS=linux GOARCH=amd64 CGO_ENABLED=1 go build -tags egl -ldflags='-s -w' -o "$carry/waiops" ./cmd/waiops
	if ! ls "$carry"/debs/libegl1_*.deb >/dev/null 2>&1; then
		(cd "$carry/debs" && apt-get download libegl1 libglvnd0 libopengl0 libgl1 libglx0)
	fi
	du -sh "$carry"
	ls -l "$carry" "$carry/debs"
	exit 0
fi

bin=$root/$carry/waiops
if [ "$mode" = local ]; then
	: "${OUT:=/tmp/waiops-local/out}"
	work=/tmp/waiops-local/work
	total=${total:-900}
	unset DISPLAY
else
	: "${OUT:?OUT is unset: on the device the run tool sets it; here use --local}"
	work=/tmp/waiops-device
	total=${total:-330}
fi
rm -rf "$work"
mkdir -p "$work/logs" "$OUT"
start=$(date +%s)
deadline=$((start + total))
summary=$work/summary.txt
: >"$summary"
log=$work/run.log
exec > >(tee -a "$log") 2>&1
kind=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
echo "device-h200.sh: mode $mode, device ${kind:-none (no nvidia-smi)}, $(date -u +%FT%TZ), whole run ${total}s, work $work, out $OUT"

# pack copies what exists so far into $OUT: a run cut short keeps it.
pack() {
	cp "$summary" "$OUT/summary.txt"
	[ -f "$work/gpuinfo.json" ] && cp "$work/gpuinfo.json" "$OUT/"
	[ -f "$work/bench-large/bench.md" ] && cp "$work/bench-large/bench.md" "$OUT/bench-large.md"
	[ -f "$work/bench-net/bench.md" ] && cp "$work/bench-net/bench.md" "$OUT/bench-net.md"
	[ -f "$work/bench-1024/bench.md" ] && cp "$work/bench-1024/bench.md" "$OUT/bench-1024.md"
	[ -f "$work/torch/torch_peer.md" ] && cp "$work/torch/torch_peer.md" "$OUT/"
	cp "$log" "$OUT/run.log"
	tar -czf "$OUT/results.tar.gz.part" -C "$work" --exclude=./peer . && mv "$OUT/results.tar.gz.part" "$OUT/results.tar.gz"
}

# step NAME LIMIT CMD...: runs CMD under timeout (LIMIT seconds, cut to what
# is left of the whole run, 15 s kept for packing), its output in
# logs/NAME.log, and records its exit status and seconds.
step() {
	local name=$1 limit=$2
	shift 2
	local left=$((deadline - $(date +%s) - 15))
	if [ "$left" -lt 5 ]; then
		echo "$name rc=skipped (no time left)" >>"$summary"
		echo "== $name: skipped, no time left"
		return
	fi
	[ "$limit" -gt "$left" ] && limit=$left
	echo "== $name (at most ${limit}s): $*"
	local t0 rc
	t0=$(date +%s)
	timeout -k 5 "$limit" "$@" >"$work/logs/$name.log" 2>&1
	rc=$?
	tail -n 15 "$work/logs/$name.log"
	echo "$name rc=$rc seconds=$(($(date +%s) - t0))$([ $rc = 124 ] && echo ' (timed out)')" >>"$summary"
	echo "== $name: exit $rc"
	pack
}

# The GL loaders: on the device the carried Debian .debs, unpacked into a
# prefix (not /), with NVIDIA's EGL vendor file; here the system's Mesa.
if [ "$mode" = device ]; then
	gl=/tmp/waiops-gl
	mkdir -p "$gl"
	for f in "$root/$carry"/debs/*.deb; do dpkg -x "$f" "$gl"; done
	libs=$gl/usr/lib/x86_64-linux-gnu
	# NVIDIA's EGL library must be on the loader's path for libglvnd to open it.
	nvlib=$(find /usr/local/nvidia /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib -maxdepth 3 -name 'libEGL_nvidia.so*' 2>/dev/null | head -n 1)
	[ -n "$nvlib" ] && libs=$libs:$(dirname "$nvlib")
	export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	vendor=
	for v in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json \
		/etc/glvnd/egl_vendor.d/10_nvidia.json /usr/local/share/glvnd/egl_vendor.d/10_nvidia.json; do
		[ -f "$v" ] && vendor=$v && break
	done
	[ -z "$vendor" ] && vendor=$(find /usr /etc /opt -maxdepth 6 -path '*egl_vendor.d/*nvidia*.json' 2>/dev/null | head -n 1)
	if [ -n "$vendor" ]; then
		export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
	fi
	echo "GL: LD_LIBRARY_PATH=$LD_LIBRARY_PATH; NVIDIA EGL library ${nvlib:-not found}; vendor file ${vendor:-not found}"
fi
chmod +x "$bin" 2>/dev/null

# Sizes: the full ones on the device; a 2-core llvmpipe run here takes the
# same steps at sizes that finish in minutes.
if [ "$mode" = device ]; then
	sweep=(--split)
	large=(--sizes 256,512 --runs 7 --warmup 2 --budget 10s)
	net=(--synth-sizes 4,16,32 --bmshj-sizes 2,4,32 --runs 7 --warmup 2 --budget 10s)
	huge=(--sizes 1024 --synth-sizes 64 --runs 5 --warmup 1 --budget 10s)
	cpu=(--sizes 512,1024 --runs 3 --warmup 1 --budget 10s)
else
	sweep=(--quick --split)
	large=(--sizes 16,64 --runs 3 --warmup 1 --budget 5s)
	net=(--synth-sizes 4 --bmshj-sizes 2,4 --runs 3 --warmup 1 --budget 5s)
	huge=(--sizes 32 --synth-sizes 2 --runs 2 --warmup 1 --budget 5s)
	cpu=(--sizes 16,64 --runs 3 --warmup 1 --budget 5s)
fi

envinfo() {
	echo "uname: $(uname -a)"
	echo "cpus: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
	ldd "$bin" | grep -iE 'egl|gl|glvnd' || true
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu --format=csv
		nvidia-smi -q -d CLOCK
	else
		echo "no nvidia-smi"
	fi
}
gpuinfo() {
	"$bin" gpu info >"$work/gpuinfo.json"
	local rc=$?
	cat "$work/gpuinfo.json"
	if [ $rc != 0 ]; then # say what the loader saw
		echo "EGL diagnosis: __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-}"
		ls -l /dev/nvidia* /dev/dri 2>&1
		find /usr /etc /opt -maxdepth 6 -path '*egl_vendor.d*' 2>/dev/null
		ldconfig -p | grep -iE 'libEGL|nvidia' | head -n 20
	fi
	return $rc
}

export -f envinfo gpuinfo
export bin work
step env 20 bash -c envinfo
# The SM clock, memory clock, load and power once a second through the
# whole run (logs/clocks.csv), for the int32 limit at the clock the work ran at.
clocks=
if command -v nvidia-smi >/dev/null; then
	nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv -lms 1000 >"$work/logs/clocks.csv" 2>&1 &
	clocks=$!
fi
step gpuinfo 30 bash -c gpuinfo
step conform 90 "$bin" conform --fabric gpu --report "$work/conformance"
step conform-hybrid 60 "$bin" conform --fabric hybrid --report "$work/conformance-hybrid"
step bench-large 120 "$bin" bench --fabric gpu "${large[@]}" --split \
	--ops conv3x3,conv3x3_raw,convT3x3s2,igdn --peer-data "$work/peer" --out "$work/bench-large"
# Whole networks: exact on the GPU against the CPU in one run, then hybrid.
step bench-net 90 "$bin" bench --fabric all "${net[@]}" --split \
	--ops graph_synth4,bmshj2018 --peer-data "$work/peer" --out "$work/bench-net"
step bench-net-hybrid 60 "$bin" bench --fabric hybrid "${net[@]}" \
	--ops graph_synth4,bmshj2018 --out "$work/bench-net-hybrid"
# 1024×1024 apart, so that a slow kernel there keeps the figures above.
step bench-1024 100 "$bin" bench --fabric gpu "${huge[@]}" --split \
	--ops conv3x3,conv3x3_raw,igdn,graph_synth4 --peer-data "$work/peer" --out "$work/bench-1024"
step bench-cpu 90 "$bin" bench --fabric cpu "${cpu[@]}" --ops conv3x3,conv3x3_raw --out "$work/bench-cpu"
step torch 120 env PYTHONUNBUFFERED=1 python3 scripts/torch_peer.py --data "$work/peer" \
	--bench "$work/bench-large/bench.json" --bench "$work/bench-net/bench.json" \
	--bench "$work/bench-net-hybrid/bench.json" --bench "$work/bench-1024/bench.json" \
	--bench "$work/bench-cpu/bench.json" --out "$work/torch"
step bench 120 "$bin" bench --fabric all "${sweep[@]}" --out "$work/bench"
step env-after 20 bash -c envinfo

[ -n "$clocks" ] && kill "$clocks" 2>/dev/null
echo "device-h200.sh: done in $(($(date +%s) - start))s"
cat "$summary"
pack
# The exit status is the first failed step's, so that a caller sees a failure.
awk '{split($2, a, "="); if (a[2] != "0") { bad = 1 }} END { exit bad }' "$summary"
