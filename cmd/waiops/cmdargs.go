package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
)

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
// into place only when write succeeds: a refused open leaves no OUT.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
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

// writeBytesAtomic writes b as the file at path, by writeAtomic.
func writeBytesAtomic(path string, b []byte) error {
	return writeAtomic(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}
