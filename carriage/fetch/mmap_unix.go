//go:build unix

package fetch

import (
	"errors"
	"math"
	"os"

	"golang.org/x/sys/unix"
)

// mapping is a file's bytes mapped read-only: its pages are read from the
// file (or the page cache) as they are touched, not copied into memory.
// The file must not shrink while it is mapped (a touch past its end would
// fault): the store's resources are never written once committed, and a
// tree's temporary file is sized before it is mapped.
type mapping struct{ b []byte }

func (m *mapping) Bytes() []byte { return m.b }

func (m *mapping) Close() error {
	if m.b == nil {
		return nil
	}
	err := unix.Munmap(m.b)
	m.b = nil
	return err
}

// release gives back the mapping's pages below end, which the caller has
// read for the last time, so that they stop counting as the process's
// resident memory (they stay in the page cache, the file's).
func (m *mapping) release(end int) {
	page := os.Getpagesize()
	if end -= end % page; end > 0 {
		unix.Madvise(m.b[:end], unix.MADV_DONTNEED)
	}
}

// mapOpen maps the first n bytes of f.
func mapOpen(f *os.File, n int64) (*mapping, error) {
	if n == 0 {
		return &mapping{}, nil
	}
	if n < 0 || uint64(n) > math.MaxInt {
		return nil, errors.ErrUnsupported
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(n), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return &mapping{b}, nil
}

// mapFile maps the file at path whole.
func mapFile(path string) (*mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the mapping outlives the descriptor
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return mapOpen(f, fi.Size())
}
