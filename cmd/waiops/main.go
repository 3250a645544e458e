// Command waiops is the one command of the waiops backend: it certifies,
// runs, conforms, lowers, decodes and benchmarks wai-ops/1 graphs.
//
// Each subcommand lives in its own file and registers itself in commands.
// Exit status: 0 success, 1 a failed check (conform), 2 bad usage, 3 a
// refusal (printed as "refuse <code>: <why>").
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/waiops/waiops/refusal"
)

// command is one subcommand: run gets the arguments after its name and
// returns the exit status.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the command args name. `waiops help` (or -h, --help)
// lists every command on stdout, exit 0; `waiops help GROUP` and `waiops
// GROUP --help` list a group's ("decode", "vectors"), exit 0. No command,
// a group without its subcommand or an unknown name is a usage error: the
// list goes to stderr, exit 2.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "waiops: give a command")
		usage(stderr, "")
		return 2
	}
	if isHelp(args[0]) {
		if len(args) > 1 && len(group(args[1])) > 0 {
			usage(stdout, args[1])
			return 0
		}
		usage(stdout, "")
		return 0
	}
	// A command may be two words ("vectors gen"): try the longer name first.
	if len(args) >= 2 {
		if c, ok := commands[args[0]+" "+args[1]]; ok {
			return c.run(args[2:], stdout, stderr)
		}
	}
	if c, ok := commands[args[0]]; ok {
		return c.run(args[1:], stdout, stderr)
	}
	if len(group(args[0])) > 0 {
		switch {
		case len(args) == 1:
			fmt.Fprintf(stderr, "waiops %s: give a subcommand\n", args[0])
		case isHelp(args[1]):
			usage(stdout, args[0])
			return 0
		default:
			fmt.Fprintf(stderr, "waiops: unknown command %q\n", args[0]+" "+args[1])
		}
		usage(stderr, args[0])
		return 2
	}
	fmt.Fprintf(stderr, "waiops: unknown command %q\n", args[0])
	usage(stderr, "")
	return 2
}

func isHelp(a string) bool { return a == "help" || a == "-h" || a == "--help" }

// group lists the commands of a group ("decode int_synth", ... for
// "decode"), sorted; none when name is no group.
func group(name string) []string {
	var out []string
	for n := range commands {
		if strings.HasPrefix(n, name+" ") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// usage lists the commands of group g, or every command when g is "".
func usage(w io.Writer, g string) {
	names := group(g)
	if g == "" {
		fmt.Fprintln(w, "usage: waiops <command> [flags] [args]  (waiops <command> -h: its flags)")
		names = names[:0]
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
	} else {
		fmt.Fprintf(w, "usage: waiops %s <subcommand> [flags] [args]\n", g)
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %-16s %s\n", n, commands[n].summary)
	}
}

// parseArgs parses flags that may stand before, between or after the
// positional arguments (Go's flag package alone stops at the first
// positional one) and returns the positional arguments in order. "--" ends
// flag parsing.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		// fs.Parse stopped at a positional argument; if the previous token
		// was "--", the rest are all positional.
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// newFlags returns a flag set that reports errors to stderr without exiting.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("waiops "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	setUsage(fs, "")
	return fs
}

// fail reports err. A refusal prints "refuse <code>: <why>" on stdout and
// gives exit status 3; any other error prints on stderr with status 2.
func fail(err error, stdout, stderr io.Writer) int {
	var r *refusal.Error
	if errors.As(err, &r) {
		fmt.Fprintf(stdout, "refuse %s: %s\n", r.Code, oneLine(r.Msg))
		return 3
	}
	fmt.Fprintf(stderr, "waiops: %v\n", err)
	return 2
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
