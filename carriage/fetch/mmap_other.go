//go:build !unix

package fetch

import (
	"errors"
	"os"
)

// mapping is, where the system maps no files here, a file's bytes read
// whole.
type mapping struct{ b []byte }

func (m *mapping) Bytes() []byte { return m.b }

func (m *mapping) Close() error { m.b = nil; return nil }

func (m *mapping) release(int) {}

// mapOpen maps nothing here; the caller reads the file instead.
func mapOpen(*os.File, int64) (*mapping, error) { return nil, errors.ErrUnsupported }

// mapFile reads the file at path whole.
func mapFile(path string) (*mapping, error) {
	b, err := os.ReadFile(path)
	return &mapping{b}, err
}
