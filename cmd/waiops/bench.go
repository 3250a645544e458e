package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/waiops/waiops/bench"
	"github.com/waiops/waiops/fabric"
)

func init() {
	commands["bench"] = command{summary: "benchmark operators and a synthesis network on every fabric", run: benchCmd}
}

// benchCmd is `waiops bench [--quick] [--fabric all|cpu|gpu|hybrid] [--out
// DIR] [--peers c,ort,ort-qlinear,onednn,ort-float] [--peers-dir DIR]`, with the sweep's sizes and
// families, the runs, the GL time split and the torch peer's data chosen by
// flag.
func benchCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", stderr)
	setUsage(fs, "[--quick] "+fabricUsage(setFabrics)+" [--out DIR] [--peers c,ort,ort-qlinear,onednn,ort-float] [--peers-dir DIR]"+
		" [--sizes 16,32] [--synth-sizes 4,8] [--bmshj-sizes 32] [--ops F,...] [--runs N] [--warmup N] [--budget 5s] [--split] [--peer-data DIR]")
	quick := fs.Bool("quick", false, "small sizes and few runs (under a minute on 2 cores)")
	fab := fabricFlag(fs, "all", setFabrics)
	out := fs.String("out", "bench-report", "directory for bench.json, bench.md and the plots")
	peers := fs.String("peers", "", "comma-separated peers to run beside ours on the int8 conv, i8 and u8 data, 1 thread and every core: "+
		"c (a C loop), ort (ONNX Runtime ConvInteger), ort-qlinear (ONNX Runtime QLinearConv, NHWC), onednn (oneDNN, libdnnl-dev); "+
		"and ort-float (ONNX Runtime fp32 on each network's float twin). A peer not installed is skipped with a note")
	peersDir := fs.String("peers-dir", "bench/peers", "directory holding conv.c, onednn_conv.c, ort_conv.js, ort_net.js and node_modules")
	sides := fs.String("sizes", "", "comma-separated input sides of the operator sweep (default 16,32,64,128; quick 16,32)")
	synthSides := fs.String("synth-sizes", "", "comma-separated input sides of the synthesis network, output 16× (default 4,8,16; quick 4)")
	bmshjSides := fs.String("bmshj-sizes", "", "comma-separated latent heights of bmshj2018, width 3/2 of it, output 16× (default 32: 768×512; quick 1)")
	ops := fs.String("ops", "", "comma-separated families to run (default all but conv3x3_raw): "+strings.Join(bench.KnownOps(), ","))
	runs := fs.Int("runs", 0, "timed runs per figure (default 9; quick 3)")
	warmup := fs.Int("warmup", -1, "untimed runs before them (default 2; quick 1)")
	budget := fs.Duration("budget", 0, "time after which a figure stops taking runs (default 5s; quick 1s)")
	split := fs.Bool("split", false, "one more decode per GL figure, its time split by GL timer queries")
	peerData := fs.String("peer-data", "", "write each conv3x3_raw case's data and each network's float twin here for scripts/torch_peer.py")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 0 {
		fs.Usage()
		return 2
	}
	sweep := bench.DefaultSweep(*quick)
	for _, v := range []struct {
		flag string
		dst  *[]int
	}{{*sides, &sweep.Sides}, {*synthSides, &sweep.SynthSides}, {*bmshjSides, &sweep.BmshjSides}} {
		if v.flag != "" {
			if *v.dst, err = bench.ParseSides(v.flag); err != nil {
				fmt.Fprintln(stderr, "waiops bench:", err)
				return 2
			}
		}
	}
	if *ops != "" {
		if sweep.Ops, err = bench.ParseOps(*ops); err != nil {
			fmt.Fprintln(stderr, "waiops bench:", err)
			return 2
		}
	}
	fabrics, notes, err := fabric.Fabrics(*fab)
	if err != nil {
		return fail(err, stderr)
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, "note:", n)
	}
	opt := bench.Options{Runs: 9, Warmup: 2, Budget: 5 * time.Second}
	peerSide := 128
	if *quick {
		opt = bench.Options{Runs: 3, Warmup: 1, Budget: time.Second}
		peerSide = 32
	}
	if *runs > 0 {
		opt.Runs = *runs
	}
	if *warmup >= 0 {
		opt.Warmup = *warmup
	}
	if *budget > 0 {
		opt.Budget = *budget
	}
	opt.Split = *split
	cases, err := sweep.Cases()
	if err != nil {
		return fail(err, stderr)
	}
	if *peerData != "" {
		if err := bench.WritePeerData(*peerData, cases, opt.Runs); err != nil {
			return fail(err, stderr)
		}
	}
	r := &bench.Report{Machine: bench.Machine(), Fabrics: map[string]map[string]string{}, Notes: notes}
	for _, f := range fabrics {
		r.Fabrics[f.Name()] = f.Identity()
	}
	var progress io.Writer
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		progress = stderr
	}
	r.Figures = bench.Run(fabrics, cases, opt, progress)
	r.Figures = append(r.Figures, bench.Apps(fabrics, opt, sweep.Wants)...)
	r.Ratios = bench.Ratios(r.Figures)
	r.Slopes = bench.Slopes(r.Figures)
	if *peers != "" {
		conv := strings.Split(*peers, ",")
		if slices.Contains(conv, "ort-float") {
			r.NetPeers = bench.RunNetPeers(*peersDir, cases, opt)
			conv = slices.DeleteFunc(conv, func(n string) bool { return n == "ort-float" })
		}
		if len(conv) > 0 {
			r.Peers = bench.RunPeers(conv, *peersDir, peerSide, opt.Runs)
			r.Headlines = bench.Headlines(r.Peers)
		}
		peerNotes(r, stderr)
	}
	if err := r.Write(*out); err != nil {
		return fail(err, stderr)
	}
	bad := 0
	for _, f := range r.Figures {
		if !f.EqualToFirst && f.Err == "" {
			bad++
			fmt.Fprintf(stdout, "outputs differ: %s on %s\n", f.Case, f.Fabric)
		}
	}
	// Every peer computes the same integers as ours (s32 sums or the same
	// rq), so a difference is a failure as a fabric's is.
	for _, p := range r.Peers {
		if p.Skipped == "" && !p.Equal {
			bad++
			fmt.Fprintf(stdout, "outputs differ: peer %s on %s at %d thread(s)\n", p.Name, p.Case, p.Threads)
		}
	}
	fmt.Fprintf(stdout, "%d figures written to %s\n", len(r.Figures), *out)
	if bad > 0 {
		return 1
	}
	return 0
}

// peerNotes puts each skipped peer on stderr once, with why.
func peerNotes(r *bench.Report, stderr io.Writer) {
	seen := map[string]bool{}
	note := func(s string) {
		if !seen[s] {
			seen[s] = true
			fmt.Fprintln(stderr, "note:", s)
		}
	}
	for _, p := range r.Peers {
		if p.Skipped != "" {
			note(fmt.Sprintf("peer %s skipped: %s", p.Name, p.Skipped))
		}
	}
	for _, p := range r.NetPeers {
		if p.Skipped != "" {
			note(fmt.Sprintf("peer %s skipped: %s", p.Peer, p.Skipped))
		}
	}
}
