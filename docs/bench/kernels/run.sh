#!/usr/bin/env bash
# Reruns the figures of docs/bench/cpu-kernels.md into this folder (from the
# repository root): the peak loops, the tile kernel alone, conv 3×3 64→64 at
# 128² (fused and unfused epilogue), conv_transpose, igdn, depthwise and
# gram/apply at 2 and 1 threads (-cpu 2,1: with b.Loop the first -cpu 1
# repeat would run before GOMAXPROCS is set), one go test run after the
# other (each figure 5 times; read the fastest run's ns/op, the CPU-time
# metrics, and the i8 benchmarks' fastest-run figures), then waiops
# bench's conv against its int8 peers, three runs, and the two networks
# against ONNX Runtime fp32.
set -euo pipefail
out=docs/bench/kernels
{
  go test -run '^$' -benchtime 100ms -count 5 -cpu 2,1 -bench 'Peak|Mac16|Tile8' ./cpuref/dot
  go test -run '^$' -benchtime 20x -count 5 -cpu 2,1 \
    -bench '_i8|Conv8|ConvT3x3s2_64x64_64|IGDN_64x64_64|Depthwise3x3_64_128|GramApply_64x64_64' ./cpuref
} >"$out/gotest.txt" 2>&1
# The peak on 2 goroutines: under -cpu 2,1 above only its 1-goroutine
# sub-benchmarks ran in the 2026-12-08 runs.
go test -run '^$' -bench 'Peak/avx512vnni' -benchtime 100ms -count 5 -cpu 2 ./cpuref/dot >"$out/peak-2threads.txt" 2>&1
go build -o /tmp/waiops-kern ./cmd/waiops
for run in 1 2 3; do
  /tmp/waiops-kern bench --fabric cpu --ops conv3x3_raw --sizes 128 --peers c,ort,ort-qlinear,onednn --runs 61 \
    --out "$out/conv-$run" >"$out/conv-$run.txt" 2>&1
done
/tmp/waiops-kern bench --fabric cpu --ops graph_synth4,bmshj2018 --peers ort-float \
  --out "$out/networks" >"$out/networks.txt" 2>&1
