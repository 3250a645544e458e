// Package mapped maps a file's bytes read-only, where the system can, so
// that a large file is read through the page cache as it is touched
// instead of being copied into the heap: a dcz predecessor (package dcz).
//
// The file must not shrink while it is mapped (a touch past its end
// faults): the store's resources are never written once committed.
package mapped

import (
	"errors"
	"math"
	"os"
)

// Map is the first bytes of a file, mapped read-only.
type Map struct{ b []byte }

// Open maps the first n bytes of f; the mapping outlives f's descriptor.
// Where the system maps no files it returns errors.ErrUnsupported, and the
// caller reads the file instead. A file shorter than n is an error.
func Open(f *os.File, n int64) (*Map, error) {
	if n < 0 || uint64(n) > math.MaxInt {
		return nil, errors.ErrUnsupported
	}
	if n == 0 {
		return &Map{}, nil
	}
	if st, err := f.Stat(); err != nil || st.Size() < n {
		return nil, errors.New("mapped: the file is shorter than the bytes asked")
	}
	b, err := mapFile(f, int(n))
	if err != nil {
		return nil, err
	}
	return &Map{b}, nil
}

// Bytes are the mapped bytes; they stay valid until Close.
func (m *Map) Bytes() []byte { return m.b }

// Close unmaps the bytes.
func (m *Map) Close() error {
	if m.b == nil {
		return nil
	}
	err := unmap(m.b)
	m.b = nil
	return err
}
