package main

import (
	"fmt"
	"io"

	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/vectors/gen"
)

func init() {
	commands["vectors gen"] = command{summary: "regenerate the conformance corpus (integer-operators §14) into a directory", run: vectorsGen}
	commands["vectors check"] = command{summary: "recompute a corpus and require it byte-identical (integer-operators §14.1)", run: vectorsCheck}
}

// vectorsGen is `waiops vectors gen --out DIR`: every part of the
// committed corpus (gen.Parts), the same bytes on every run. Files
// under a part's directories that it no longer generates are removed.
func vectorsGen(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("vectors gen", stderr)
	setUsage(fs, "--out DIR")
	out := fs.String("out", "", "the corpus root to write (the repository's is vectors/)")
	if _, ok := positionals(fs, args, 0, func() bool { return *out != "" }); !ok {
		return 2
	}
	parts, err := gen.WriteParts(*out)
	for _, p := range parts {
		fmt.Fprintf(stdout, "wrote %s: %d files (%d bytes) under %s\n", p.Name, p.Files, p.Bytes, *out)
		for _, n := range p.Removed {
			fmt.Fprintf(stdout, "removed %s: no generator writes it\n", n)
		}
	}
	if err != nil {
		return fail(err, stderr)
	}
	return 0
}

// vectorsCheck is `waiops vectors check DIR`: every §14.1 file under DIR
// recomputed from its graph bytes and inputs (stage vectors from their in)
// and written again in memory, byte for byte (§14.1 "Who writes the
// vectors"); then every part of the committed corpus (gen.Parts)
// regenerated and compared with DIR's, no file more or less.
func vectorsCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("vectors check", stderr)
	setUsage(fs, "DIR")
	pos, ok := positionals(fs, args, 1, nil)
	if !ok {
		return 2
	}
	c, err := vectors.Project(pos[0])
	if err != nil { // no corpus to check: a failure, not a check's result
		return fail(err, stderr)
	}
	sum, err := gen.Check(c)
	if err != nil {
		fmt.Fprintf(stdout, "FAIL %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "ok %s recompute byte-identical; corpus sha256 %s\n", sum, c.SHA256)
	parts, err := gen.CheckParts(pos[0])
	for _, p := range parts {
		fmt.Fprintf(stdout, "ok %s: %d files regenerate byte-identical\n", p.Name, p.Files)
	}
	if err != nil {
		fmt.Fprintf(stdout, "FAIL %v\n", err)
		return 1
	}
	return 0
}
