package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/term"
)

// stdin is where a command reads an input named "-" (or none, for rans);
// tests replace it.
var stdin io.Reader = os.Stdin

// isTerminal reports whether r is a terminal.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// positionals parses args by fs and wants exactly n positional arguments
// and, where valid is not nil, valid() true once the flags are read (the
// flags a command requires). Otherwise it prints the usage (fs.Parse has
// already printed it for a bad flag) and reports false: the command exits 2.
func positionals(fs *flag.FlagSet, args []string, n int, valid func() bool) ([]string, bool) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, false
	}
	if len(pos) != n || (valid != nil && !valid()) {
		fs.Usage()
		return nil, false
	}
	return pos, true
}

// readAtMost reads at most max bytes of the file at path: a reader whose
// cap is below max refuses a longer file without the whole of it held.
func readAtMost(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// openSized opens the file at path for a reader that wants its size too.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// writeAtomic writes path through a temporary file beside it, renamed
// into place only when write succeeds: a refused open leaves no OUT, and a
// command stopped by a signal leaves no temporary file (removePartials).
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	addPartial(tmp.Name())
	defer dropPartial(tmp.Name())
	defer os.Remove(tmp.Name()) // a no-op once renamed
	err = tmp.Chmod(0o644)      // CreateTemp's 0600 is for the file's life as a temporary
	if err == nil {
		err = write(tmp)
	}
	if err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// writeResult writes a command's result file at path by writeAtomic, or,
// where path is "-", on stdout: held in memory until write succeeds, so
// that a refusal leaves nothing on stdout either.
func writeResult(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path != "-" {
		return writeAtomic(path, write)
	}
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	_, err := stdout.Write(buf.Bytes())
	return err
}

// writeBytes writes b as the result file at path, by writeResult.
func writeBytes(path string, stdout io.Writer, b []byte) error {
	return writeResult(path, stdout, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// resultLine prints a command's summary line (`sealed …`, `set …`): on
// stdout, or on stderr where the result file itself goes to stdout (out is
// "-"), so that stdout holds the file's bytes alone.
func resultLine(out string, stdout, stderr io.Writer, format string, a ...any) {
	w := stdout
	if out == "-" {
		w = stderr
	}
	fmt.Fprintf(w, format, a...)
}
