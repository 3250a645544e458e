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
	commands["prior tree"] = command{summary: "write the wai.prior.tree head of a set (prior-carriage §19.1)", run: runPriorTree}
	commands["prior head"] = command{summary: "read a wai.prior.tree head by its checks and print its fields (prior-carriage §19.1)", run: runPriorHead}
	commands["prior verify"] = command{summary: "verify a held file against a tree head, piece by piece, then its SHA-256 (prior-carriage §19.2)", run: runPriorVerify}
	commands["prior plan"] = command{summary: "apply the amortisation rule to a plan (prior-carriage §17.2)", run: runPriorPlan}
}

// runPriorTree is `waiops prior tree --g N [--form F] IN OUT.wtr1`: it
// reads IN once, a group of 16 chunks at a time, and writes the head to OUT
// (- for stdout); a refused head writes no OUT.
func runPriorTree(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior tree", stderr)
	setUsage(fs, "--g N [--form F] IN OUT.wtr1")
	g := fs.Int("g", -1, "a piece is 1024 · 2^g bytes, g 0 to 16")
	form := innerFormFlag(fs, "the set's inner form (prior-carriage §19.1): wai.prior.safetensors, wai.prior.gguf, wai.prior.sealed, or none (empty)")
	pos, ok := positionals(fs, args, 2, func() bool { return *g >= 0 })
	if !ok {
		return 2
	}
	in, err := os.Open(pos[0])
	if err != nil {
		return fail(err, stderr)
	}
	defer in.Close()
	h, err := tree.Write(bufio.NewReaderSize(in, 1<<16), *g, *form)
	if err != nil {
		return fail(err, stderr)
	}
	if err := writeBytes(pos[1], stdout, h.Encode()); err != nil {
		return fail(err, stderr)
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
		return fail(err, stderr)
	}
	b, err := cjson.Marshal(h.Fields())
	if err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}

// runPriorVerify is `waiops prior verify HEAD.wtr1 FILE`: ok on stdout, or
// a reason line per piece that fails on stderr, then the refusal.
func runPriorVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prior verify", stderr)
	setUsage(fs, "HEAD.wtr1 FILE")
	pos, ok := positionals(fs, args, 2, nil)
	if !ok {
		return 2
	}
	h, err := readHead(pos[0])
	if err != nil {
		return fail(err, stderr)
	}
	f, err := os.Open(pos[1])
	if err != nil {
		return fail(err, stderr)
	}
	defer f.Close()
	failed, err := tree.Verify(h, bufio.NewReaderSize(f, 1<<16))
	for _, i := range failed {
		fmt.Fprintf(stderr, "piece %d: %s\n", i, tree.PieceMismatch)
	}
	if err != nil {
		return fail(err, stderr)
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
		return fail(err, stderr)
	}
	p, err := amortise.Read(b)
	if err != nil {
		return fail(err, stderr)
	}
	o, err := amortise.Apply(p)
	if err != nil {
		return fail(err, stderr)
	}
	out, err := o.JSON()
	if err != nil {
		return fail(err, stderr)
	}
	fmt.Fprintf(stdout, "%s\n", out)
	return 0
}
