package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/waiops/waiops/vectors/report"
)

func init() {
	commands["conform matrix"] = command{summary: "write index.md and index.html: every report of a folder, a row per fabric", run: conformMatrix}
}

// conformMatrix is `waiops conform matrix DIR`: DIR/*/conformance.json,
// one folder per fabric (docs/conformance/), become DIR/index.md and
// DIR/index.html, a row per fabric (identity, corpus digest, date) and a
// column per operator, graph file and stage operator.
func conformMatrix(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("conform matrix", stderr)
	setUsage(fs, "DIR")
	pos, ok := positionals(fs, args, 1, nil)
	if !ok {
		return 2
	}
	if err := report.WriteMatrix(pos[0]); err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(pos[0], "index.md"), filepath.Join(pos[0], "index.html"))
	return 0
}
