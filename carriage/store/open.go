package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is Open's answer for a name in the store that is not a
// regular file of the store's own: a symlink (wherever it points), a
// directory, a device or a pipe.
var ErrNotRegular = errors.New("not a regular file in the store")

// Open opens the resource d for reading only when the store's entry of
// that name is itself a regular file, never through a symlink, so a server
// serves nothing from outside the store. The entry is read with Lstat
// before it is opened and the opened file is required to be the very file
// Lstat saw (os.SameFile), so an entry swapped for a symlink in between is
// refused too. The FileInfo is the opened file's.
func (s Store) Open(d [32]byte) (*os.File, fs.FileInfo, error) {
	p := s.Path(d)
	li, err := os.Lstat(p)
	if err != nil {
		return nil, nil, err
	}
	if !li.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w", p, ErrNotRegular)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !os.SameFile(li, fi) {
		err = fmt.Errorf("%s: %w (it changed as it was opened)", p, ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// Verify reports whether the bytes of f, read from its start, have the
// SHA-256 d: whether the file is the resource its name says it is. It
// leaves f's offset at its end.
func Verify(f *os.File, d [32]byte) (bool, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false, err
	}
	return [32]byte(h.Sum(nil)) == d, nil
}
