package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/waiops/waiops/prior"
	"github.com/waiops/waiops/vectors"
)

func init() {
	commands["vectors gen"] = command{"regenerate the conformance corpus (§14) into a directory", vectorsGen}
	commands["vectors check"] = command{"recompute a corpus and require it byte-identical (§14.1)", vectorsCheck}
}

// vectorsGen is `waiops vectors gen --out DIR`: ops/, graphs/ and stage/
// in the §14.1 format, and prior/ (prior-carriage), the same bytes on
// every run.
func vectorsGen(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("vectors gen", stderr)
	out := fs.String("out", "", "the corpus root to write (the repository's is vectors/)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if *out == "" || len(pos) != 0 {
		fmt.Fprintln(stderr, "usage: waiops vectors gen --out DIR")
		return 2
	}
	files, err := vectors.Generate()
	if err != nil {
		return fail(err, stdout, stderr)
	}
	if err := vectors.WriteTree(*out, files); err != nil {
		return fail(err, stdout, stderr)
	}
	if err := prior.WriteCorpus(filepath.Join(*out, "prior")); err != nil {
		return fail(err, stdout, stderr)
	}
	n := 0
	for _, b := range files {
		n += len(b)
	}
	fmt.Fprintf(stdout, "wrote %d vector files (%d bytes) and prior/ under %s\n", len(files), n, *out)
	return 0
}

// vectorsCheck is `waiops vectors check DIR`: every load, profile list and
// expectation recomputed from the graph bytes and inputs (stage vectors
// from their in), each file written again in memory and compared byte for
// byte; prior/ regenerated and compared when DIR has one.
func vectorsCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("vectors check", stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: waiops vectors check DIR")
		return 2
	}
	c, err := vectors.Project(pos[0])
	if err != nil {
		fmt.Fprintf(stdout, "FAIL %v\n", err)
		return 1
	}
	sum, err := vectors.Check(c)
	if err != nil {
		fmt.Fprintf(stdout, "FAIL %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "ok %s; corpus sha256 %s\n", sum, c.SHA256)
	pd := filepath.Join(pos[0], "prior")
	if _, err := os.Stat(pd); err == nil {
		n, err := vectors.CheckPrior(pd)
		if err != nil {
			fmt.Fprintf(stdout, "FAIL %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "ok prior: %d files regenerate byte-identical\n", n)
	}
	return 0
}
