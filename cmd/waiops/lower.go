package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/waiops/waiops/drivers"
)

func init() {
	commands["lower"] = command{summary: "lower a parameter set to WHG1 graphs and its certificate (integer-operators §13, §8.5)", run: runLower}
}

// runLower is `waiops lower --lowering L [--capability C] FILE... --out DIR`.
// It writes DIR/<role>.whg1 for each role in §13.0's order and
// DIR/certificate.json. A set whose certificate fails acc64 is written
// whole, then refused (§14.3 keeps such sets).
func runLower(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("lower", stderr)
	setUsage(fs, "--lowering L [--capability C] FILE... --out DIR")
	var capability *string
	fs.Func("capability", "the capability string (default null)", func(s string) error { capability = &s; return nil })
	lowering := fs.String("lowering", "", "the lowering (integer-operators §13): int_synth/1, whm1/1, wam1/1, wmb1/1, world/1 or jpegai-int/1")
	out := fs.String("out", "", "the directory to write the graphs and certificate.json into")
	names, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if *lowering == "" || *out == "" || len(names) == 0 {
		fs.Usage()
		return 2
	}
	files := make([]drivers.File, len(names))
	for i, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return fail(err, stderr)
		}
		files[i] = drivers.File{Name: n, Data: b}
	}
	set, lowerErr := drivers.Lower(*lowering, capability, files)
	if set == nil {
		return fail(lowerErr, stderr)
	}
	if err := writeSet(set, *out); err != nil {
		return fail(err, stderr)
	}
	if lowerErr != nil {
		return fail(lowerErr, stderr)
	}
	return 0
}

// writeSet writes each role's graph and the certificate into dir.
func writeSet(set *drivers.Set, dir string) error {
	var outs []output
	for _, r := range set.Roles {
		outs = append(outs, output{filepath.Join(dir, r.Name+".whg1"), r.Bytes})
	}
	return writeOutputs(append(outs, output{filepath.Join(dir, "certificate.json"), set.Certificate}), nil)
}
