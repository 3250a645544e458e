package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/waiops/waiops/refusal"
)

// One rule decides the stream and the exit status of every command:
//
//	0    success; the results are on stdout, and only they are
//	1    any other failure (I/O, a GL context that cannot be made, a failed check)
//	2    a command line that does not parse (the usage on stderr)
//	3    a refusal: "refuse <code>: <why>" on stderr, with the spec's code
//	130  stopped by SIGINT or SIGTERM: no refusal line, no partial output file
//
// Refusals, reasons, notes and progress go to stderr, never stdout, so that
// `waiops prior load F > OUT` leaves no refusal inside OUT.

// exitInterrupted is the status of a command stopped by SIGINT or SIGTERM
// (128 + SIGINT's number, as a shell reports it).
const exitInterrupted = 130

// fail reports err on stderr and gives its exit status: a refusal prints
// "refuse <code>: <why>" and gives 3; any other error gives 1.
func fail(err error, stderr io.Writer) int {
	var r *refusal.Error
	if errors.As(err, &r) {
		fmt.Fprintf(stderr, "refuse %s: %s\n", r.Code, oneLine(r.Msg))
		return 3
	}
	fmt.Fprintf(stderr, "waiops: %v\n", err)
	return 1
}

// failCtx is fail for a command that watches ctx: once ctx is done (main's
// SIGINT or SIGTERM), whatever err says is the interruption's doing, so it
// prints no refusal and gives 130.
func failCtx(ctx context.Context, err error, stderr io.Writer) int {
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "waiops: interrupted")
		return exitInterrupted
	}
	return fail(err, stderr)
}

// usageError reports a wrong argument as bad usage: the reason and the
// usage on stderr, exit 2.
func usageError(fs *flag.FlagSet, err error) int {
	fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
	fs.Usage()
	return 2
}

// partials holds the temporary files being written (writeAtomic's), so that
// a command stopped by a signal leaves none of them behind.
var partials = struct {
	sync.Mutex
	names map[string]bool
}{names: map[string]bool{}}

func addPartial(name string) {
	partials.Lock()
	partials.names[name] = true
	partials.Unlock()
}

func dropPartial(name string) {
	partials.Lock()
	delete(partials.names, name)
	partials.Unlock()
}

// removePartials removes every temporary file still being written. It
// holds the lock to the end, so no file is added meanwhile.
func removePartials() {
	partials.Lock()
	for n := range partials.names {
		os.Remove(n)
	}
}

// interruptible runs a command that does not watch ctx. Once ctx is done
// (SIGINT or SIGTERM), the command's temporary files are removed and the
// process exits 130 at once; a result file is only ever renamed into place
// whole, so none is left half written.
func interruptible(ctx context.Context, stderr io.Writer, run func() int) int {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			select {
			case <-done: // the command had ended; main's stop ended ctx
				return
			default:
			}
			removePartials()
			fmt.Fprintln(stderr, "waiops: interrupted")
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return run()
}
