package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/waiops/waiops/bench"
	"github.com/waiops/waiops/plan"
)

func init() {
	commands["bench"] = command{"benchmark operators and a synthesis network on every fabric", benchCmd}
}

// benchCmd is `waiops bench [--quick] [--fabric auto|cpu|gpu] [--out DIR]
// [--peers c,ort]` (issue 8).
func benchCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", stderr)
	quick := fs.Bool("quick", false, "small sizes and few runs (under a minute on 2 cores)")
	fabric := fs.String("fabric", "auto", "auto (every fabric present), cpu or gpu")
	out := fs.String("out", "bench-report", "directory for bench.json, bench.md and the plots")
	peers := fs.String("peers", "", "comma-separated peers to run beside ours: c, ort")
	peersDir := fs.String("peers-dir", "bench/peers", "directory holding conv.c, ort_conv.js and node_modules")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 0 {
		fmt.Fprintln(stderr, "usage: waiops bench [--quick] [--fabric auto|cpu|gpu] [--out DIR] [--peers c,ort]")
		return 2
	}
	fabrics, notes, err := plan.Fabrics(*fabric)
	if err != nil {
		return fail(err, stdout, stderr)
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
	r := &bench.Report{Machine: bench.Machine(), Fabrics: map[string]map[string]string{}, Notes: notes}
	for _, f := range fabrics {
		r.Fabrics[f.Name()] = f.Identity()
	}
	var progress io.Writer
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		progress = stderr
	}
	r.Figures = bench.Run(fabrics, bench.Cases(*quick), opt, progress)
	r.Figures = append(r.Figures, bench.Apps(fabrics, opt)...)
	r.Ratios = bench.Ratios(r.Figures)
	r.Slopes = bench.Slopes(r.Figures)
	if *peers != "" {
		r.Peers = bench.RunPeers(strings.Split(*peers, ","), *peersDir, peerSide, opt.Runs)
	}
	if err := r.Write(*out); err != nil {
		return fail(err, stdout, stderr)
	}
	bad := 0
	for _, f := range r.Figures {
		if !f.EqualToFirst && f.Err == "" {
			bad++
			fmt.Fprintf(stdout, "outputs differ: %s on %s\n", f.Case, f.Fabric)
		}
	}
	fmt.Fprintf(stdout, "%d figures written to %s\n", len(r.Figures), *out)
	if bad > 0 {
		return 1
	}
	return 0
}
