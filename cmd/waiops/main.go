// Command waiops is the one command of the waiops backend: it certifies,
// runs, conforms, lowers, decodes and benchmarks wai-ops/1 graphs, and
// carries parameter sets (prior-carriage).
//
// Each subcommand lives in its own file and registers itself in commands.
// Every command keeps one contract (exit.go): results on stdout; refusals,
// reasons, notes and progress on stderr; exit 0 success, 1 failure, 2 bad
// usage, 3 a refusal ("refuse <code>: <why>"), 130 stopped by a signal.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand. run gets the arguments after its name and
// returns the exit status; a command that watches for SIGINT and SIGTERM
// itself (it cleans up and returns) has runCtx instead, and gets main's
// context.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
	runCtx  func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// call runs c: runCtx with ctx; run under interruptible, which ends the
// process with 130 once ctx is done.
func (c command) call(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if c.runCtx != nil {
		return c.runCtx(ctx, args, stdout, stderr)
	}
	return interruptible(ctx, stderr, func() int { return c.run(args, stdout, stderr) })
}

func main() { os.Exit(mainStatus()) }

// mainStatus is the one place that catches SIGINT and SIGTERM: the
// context the command gets is done when either arrives.
func mainStatus() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return dispatchCtx(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

// dispatchCtx runs the command args name. `waiops help` (or -h, --help)
// lists every command on stdout, exit 0; `waiops help GROUP` and `waiops
// GROUP --help` list a group's ("decode", "vectors"), and `waiops help CMD`
// and `waiops CMD -h` print the command's usage, on stdout, exit 0. No
// command, a group without its subcommand or an unknown name is a usage
// error: the list goes to stderr, exit 2.
func dispatchCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "waiops: give a command")
		usage(stderr, "")
		return 2
	}
	if isHelp(args[0]) {
		if len(args) == 1 {
			usage(stdout, "")
			return 0
		}
		if name, rest, ok := lookup(args[1:]); ok && len(rest) == 0 {
			return commandUsage(ctx, name, stdout)
		}
		if len(args) == 2 && len(group(args[1])) > 0 {
			usage(stdout, args[1])
			return 0
		}
		fmt.Fprintf(stderr, "waiops: unknown command %q\n", strings.Join(args[1:], " "))
		usage(stderr, "")
		return 2
	}
	if name, rest, ok := lookup(args); ok {
		if wantsHelp(rest) {
			return commandUsage(ctx, name, stdout)
		}
		return commands[name].call(ctx, rest, stdout, stderr)
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

// lookup finds the command args start with, a two-word name ("vectors
// gen") before a one-word one, and returns its name and the rest.
func lookup(args []string) (string, []string, bool) {
	if len(args) >= 2 {
		if n := args[0] + " " + args[1]; commands[n].summary != "" {
			return n, args[2:], true
		}
	}
	if len(args) >= 1 && commands[args[0]].summary != "" {
		return args[0], args[1:], true
	}
	return "", nil, false
}

// wantsHelp reports whether a help flag (-h, -help, with one dash or two)
// stands among a command's arguments before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "--h", "-help", "--help":
			return true
		}
	}
	return false
}

// commandUsage prints the named command's usage (its usage line and every
// flag's help) on stdout, exit 0: the command parses -h alone, which prints
// the usage once on the flag set's output, here stdout, and does nothing.
func commandUsage(ctx context.Context, name string, stdout io.Writer) int {
	commands[name].call(ctx, []string{"-h"}, io.Discard, stdout)
	return 0
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

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
