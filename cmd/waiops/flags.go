package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
)

// What each --fabric value means, in every command that takes it. auto and
// all are different words for different things: auto is the planner's pick
// for one graph (run, decode), all is every fabric present, each run in turn
// (conform, bench).
var fabricMeaning = map[string]string{
	"auto":   "the planner picks per graph: the GPU for an acc32 graph when a hardware GL device is present, else the CPU reference",
	"all":    "every fabric present, each in turn: cpu, and gpu when a GL 4.3 context can be made (hybrid is opt-in)",
	"cpu":    "the exact CPU reference (acc64)",
	"gpu":    "the GL compute fabric (acc32), a software renderer included",
	"hybrid": "acc64 split: runs of nodes that fit acc32 on the GL fabric, the rest on the CPU reference (opt-in)",
}

// The --fabric values of the two kinds of command.
var (
	// graphFabrics are run's and decode's: one session decodes the graphs.
	graphFabrics = []string{"auto", "cpu", "gpu", "hybrid"}
	// setFabrics are conform's and bench's: a set of fabrics, each run in
	// turn.
	setFabrics = []string{"all", "cpu", "gpu", "hybrid"}
)

// fabricValue is a --fabric value restricted to the values a command takes.
type fabricValue struct {
	v       *string
	accepts []string
}

func (f fabricValue) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f fabricValue) Set(s string) error {
	if slices.Contains(f.accepts, s) {
		*f.v = s
		return nil
	}
	if s == "auto" && slices.Contains(f.accepts, "all") {
		return fmt.Errorf("auto is the planner's pick for each graph (run, decode); this command runs a set of fabrics: all runs every fabric present")
	}
	return fmt.Errorf("want %s", strings.Join(f.accepts, ", "))
}

// fabricFlag registers --fabric on fs, taking exactly the values accepts
// (def among them), and returns the value once fs is parsed.
func fabricFlag(fs *flag.FlagSet, def string, accepts []string) *string {
	v := def
	var help strings.Builder
	help.WriteString("the fabric:")
	for _, a := range accepts {
		fmt.Fprintf(&help, "\n  %s: %s", a, fabricMeaning[a])
	}
	fs.Var(fabricValue{&v, accepts}, "fabric", help.String())
	return &v
}

// fabricUsage is --fabric as a usage line shows it: [--fabric a|b|c].
func fabricUsage(accepts []string) string {
	return "[--fabric " + strings.Join(accepts, "|") + "]"
}

// setUsage makes line (what follows "waiops NAME" in the usage line) the
// command's usage: fs.Usage prints it and then every flag's help, on -h and
// wherever the command finds its arguments wrong.
func setUsage(fs *flag.FlagSet, line string) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s %s\n", fs.Name(), line)
		fs.PrintDefaults()
	}
}
