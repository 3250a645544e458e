package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/waiops/waiops/carriage/amortise"
	"github.com/waiops/waiops/carriage/tree"
	"github.com/waiops/waiops/cjson"
)

func init() {
	commands["prior tree"] = command{"write the wai.prior.tree head of a set (prior-carriage §19.1)", runPriorTree}
	commands["prior head"] = command{"read a wai.prior.tree head by §19.1's checks and print its fields", runPriorHead}
	commands["prior verify"] = command{"verify a held file against a tree head, piece by piece, then its SHA-256 (prior-carriage §19.2)", runPriorVerify}
	commands["prior plan"] = command{"apply §17.2's amortisation rule to a plan (prior-carriage §17, DECISIONS H6)", runPriorPlan}
}

// runPriorTree is `waiops prior tree --g N [--inner-form F] IN OUT.wtr1`:
// it reads IN once, a group of 16 chunks at a time, and writes the head to
// OUT; a refused head writes no OUT.
func runPriorTree(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior tree", stderr)
	setUsage(fs, "--g N [--inner-form F] IN OUT.wtr1")
	g := fs.Int("g", -1, "a piece is 1024 · 2^g bytes, g 0 to 16")
	form := fs.String("inner-form", "", "the set's inner form: none, wai.prior.safetensors, wai.prior.gguf or wai.prior.sealed")
	pos, ok := positionals(fs, args, 2, func() bool { return *g >= 0 })
	if !ok {
		return 2
	}
	in, err := os.Open(pos[0])
	if err != nil {
		return fail(err, stdout, stderr)
	}
	defer in.Close()
	h, err := tree.Write(bufio.NewReaderSize(in, 1<<16), *g, *form)
	if err != nil {
		return fail(err, stdout, stderr)
	}
	if err := writeBytesAtomic(pos[1], h.Encode()); err != nil {
		return fail(err, stdout, stderr)
	}
	return 0
}

// readHead reads a head file, at most one byte past the largest head the
// layout allows, so that tree.Read refuses a longer one without holding it.
func readHead(path string) (*tree.Head, error) {
	b, err := readAtMost(path, tree.MaxHeadSize+1)
	if err != nil {
		return nil, err
	}
	return tree.Read(b)
}

// runPriorHead is `waiops prior head HEAD.wtr1`: the head's fields as one
// line of canonical JSON, or the refusal.
func runPriorHead(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior head", stderr)
	setUsage(fs, "HEAD.wtr1")
	pos, ok := positionals(fs, args, 1, nil)
	if !ok {
		return 2
	}
	h, err := readHead(pos[0])
	if err != nil {
		return fail(err, stdout, stderr)
	}
	b, err := cjson.Marshal(h.Fields())
	if err != nil {
		return fail(err, stdout, stderr)
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}

// runPriorVerify is `waiops prior verify HEAD.wtr1 FILE`: a line per piece
// that fails, then ok or the refusal.
func runPriorVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior verify", stderr)
	setUsage(fs, "HEAD.wtr1 FILE")
	pos, ok := positionals(fs, args, 2, nil)
	if !ok {
		return 2
	}
	h, err := readHead(pos[0])
	if err != nil {
		return fail(err, stdout, stderr)
	}
	f, err := os.Open(pos[1])
	if err != nil {
		return fail(err, stdout, stderr)
	}
	defer f.Close()
	failed, err := tree.Verify(h, bufio.NewReaderSize(f, 1<<16))
	for _, i := range failed {
		fmt.Fprintf(stdout, "piece %d: %s\n", i, tree.PieceMismatch)
	}
	if err != nil {
		return fail(err, stdout, stderr)
	}
	fmt.Fprintln(stdout, "ok")
	return 0
}

// runPriorPlan is `waiops prior plan PLAN.json`: the outcome as one line of
// canonical JSON, or plan_malformed.
func runPriorPlan(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior plan", stderr)
	setUsage(fs, "PLAN.json")
	pos, ok := positionals(fs, args, 1, nil)
	if !ok {
		return 2
	}
	b, err := readAtMost(pos[0], amortise.MaxPlanBytes+1)
	if err != nil {
		return fail(err, stdout, stderr)
	}
	p, err := amortise.Read(b)
	if err != nil {
		return fail(err, stdout, stderr)
	}
	o, err := amortise.Apply(p)
	if err != nil {
		return fail(err, stdout, stderr)
	}
	out, err := o.JSON()
	if err != nil {
		return fail(err, stdout, stderr)
	}
	fmt.Fprintf(stdout, "%s\n", out)
	return 0
}
