package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/waiops/waiops/cpuref/dot"
)

func init() {
	commands["version"] = command{summary: "print the module version, commit, Go version, build settings and the CPU kernels picked", run: runVersion}
}

// runVersion is `waiops version`: one fact a line, each "<name> <value>",
// for a bug report or a benchmark's record. What the build does not know
// (a commit, outside a git checkout) reads "unknown".
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", stderr)
	if _, ok := positionals(fs, args, 0, nil); !ok {
		return 2
	}
	mod, set := "unknown", map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			mod = bi.Main.Version
		}
		for _, s := range bi.Settings {
			set[s.Key] = s.Value
		}
	}
	val := func(k string) string {
		if v := set[k]; v != "" {
			return v
		}
		return "unknown"
	}
	commit := val("vcs.revision")
	if set["vcs.modified"] == "true" {
		commit += " (modified)"
	}
	fmt.Fprintf(stdout, "waiops %s\n", mod)
	fmt.Fprintf(stdout, "commit %s %s\n", commit, val("vcs.time"))
	fmt.Fprintf(stdout, "go %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(stdout, "build CGO_ENABLED=%s tags=%s\n", val("CGO_ENABLED"), set["-tags"])
	// cpuref/dot's dispatcher picks the kernels once, for this CPU.
	fmt.Fprintf(stdout, "kernels mac16 %s, mac8 %s\n", dot.Selected(), dot.Selected8())
	return 0
}
