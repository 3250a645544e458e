package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/waiops/waiops/carriage/corpus"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/stage"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/vectors/conform"
	"github.com/waiops/waiops/vectors/report"
)

func init() {
	commands["conform"] = command{summary: "run a vector corpus (integer-operators §14.1) on a fabric and report", run: conformCmd}
}

// paths is a repeatable flag.
type paths []string

func (p *paths) String() string     { return strings.Join(*p, ",") }
func (p *paths) Set(s string) error { *p = append(*p, s); return nil }

// conformCmd is `waiops conform [--fabric all|cpu|gpu|hybrid] [--vectors PATH...]
// [--report DIR] [PATH...]`: every vector whose profiles include the fabric's profile
// (cpu: acc64, gpu: acc32), and on the CPU fabric every stage vector; with
// no paths, the repository's vectors/carriage cases as well. It
// prints one line per failure and last `N passed, M failed`; exit 1 when M
// is not 0.
func conformCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("conform", stderr)
	setUsage(fs, fabricUsage(setFabrics)+" [--vectors PATH]... [--report DIR] [PATH...]")
	fab := fabricFlag(fs, "cpu", setFabrics)
	var vpaths paths
	fs.Var(&vpaths, "vectors", "a vector file or directory (repeatable, and any further arguments are more; default the repository's vectors/)")
	reportDir := fs.String("report", "", "write conformance.json and conformance.html here (with --fabric all, one subdirectory per fabric)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	// Arguments without a flag are more vector paths, wherever they stand.
	vpaths = append(vpaths, pos...)
	var c *vectors.Corpus
	carriageDir := "" // the project's vectors/carriage, run beside the fabrics
	if len(vpaths) == 0 {
		root, err := repoVectors()
		if err != nil {
			return fail(err, stderr)
		}
		c, err = vectors.Project(root)
		if _, serr := os.Stat(filepath.Join(root, vectors.CarriageDir, "cases.jsonl")); serr == nil {
			carriageDir = filepath.Join(root, vectors.CarriageDir)
		}
	} else {
		c, err = vectors.Open(vpaths)
	}
	if err != nil {
		return fail(err, stderr)
	}
	fabrics, notes, err := fabric.Fabrics(*fab)
	if err != nil {
		return fail(err, stderr)
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, "note:", n)
	}
	var carr *corpus.Result
	if carriageDir != "" {
		r, err := corpus.Run(carriageDir)
		if err != nil {
			return fail(err, stderr)
		}
		carr = &r
	}
	passed, failed := 0, 0
	for _, f := range fabrics {
		var eval conform.StageEval
		if f.Name() == "cpu" {
			eval = stage.ExpectOf // stage operators run in the driver, on the CPU (§7.4)
		}
		r := conform.Run(f, c, eval)
		for _, fl := range r.Failures {
			fmt.Fprintf(stdout, "%s: %s\n", f.Name(), fl)
		}
		if len(fabrics) > 1 {
			fmt.Fprintf(stdout, "%s (%s): %d passed, %d failed\n", f.Name(), f.Profile(), r.Passed, r.Failed)
		}
		passed, failed = passed+r.Passed, failed+r.Failed
		if *reportDir != "" {
			if carr != nil {
				r.AddGroup(vectors.CarriageDir, carr.Passed, carr.Failures)
			}
			// all writes one subdirectory per fabric, however many are
			// present, so that a report's place does not hang on the machine.
			dir := *reportDir
			if *fab == "all" {
				dir = filepath.Join(dir, f.Name())
			}
			if err := report.Write(r, dir); err != nil {
				return fail(err, stderr)
			}
		}
	}
	// prior-carriage §17 to §19's cases are files in and files out on no
	// fabric: they run once, counted once, and every report holds them
	// beside its fabric's groups (the corpus digest covers them).
	if carr != nil {
		for _, fl := range carr.Failures {
			fmt.Fprintf(stdout, "carriage: %s\n", fl)
		}
		if len(fabrics) > 1 {
			fmt.Fprintf(stdout, "carriage: %d passed, %d failed\n", carr.Passed, len(carr.Failures))
		}
		passed, failed = passed+carr.Passed, failed+len(carr.Failures)
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// repoVectors finds the repository's vectors/ from the working directory
// upward: the directory beside go.mod.
func repoVectors() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "vectors"), nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above the working directory: name the corpus with --vectors")
		}
		dir = up
	}
}
