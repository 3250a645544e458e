// Package store is the content-addressed directory a sink fills and a
// server serves (prior-carriage §15): the resource with SHA-256 D is the
// file DIR/<D in lower-case hex>. Package fetch writes it, through a
// temporary file renamed into place only once verified; package serve reads
// it.
//
// Use it wherever a set is held by digest. It fetches nothing; for a
// server it opens only regular files of its own (Open) and checks a file
// against its name (Verify), and Stamp says when a check still holds.
package store

import (
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// Store is a content-addressed directory.
type Store string

// Path is the file that holds d.
func (s Store) Path(d [32]byte) string { return filepath.Join(string(s), hex.EncodeToString(d[:])) }

// Holds reports whether the store holds d: whether its entry of d's name
// is a regular file (a symlink is not held, wherever it points).
func (s Store) Holds(d [32]byte) bool {
	fi, err := os.Lstat(s.Path(d))
	return err == nil && fi.Mode().IsRegular()
}

// Limit is n as a length io.LimitReader takes, short of MaxInt64 so that a
// bound's one extra byte (read to tell "more than n") still fits.
func Limit(n uint64) int64 { return int64(min(n, math.MaxInt64-1)) }

// ReadFile reads the resource d, refusing one of more than max bytes
// without reading past max + 1.
func (s Store) ReadFile(d [32]byte, max uint64) ([]byte, error) {
	f, err := os.Open(s.Path(d))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, Limit(max)+1))
	if err == nil && uint64(len(b)) > max {
		err = fmt.Errorf("%x is more than %d bytes", d, max)
	}
	return b, err
}

// Temp is a temporary file in the store, made into a resource by Commit or
// removed by Discard.
type Temp struct {
	s Store
	*os.File
}

// Create makes a temporary file in the store, creating its directory.
func (s Store) Create() (*Temp, error) {
	if err := os.MkdirAll(string(s), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(string(s), ".fetch-*")
	if err != nil {
		return nil, err
	}
	return &Temp{s, f}, nil
}

// Discard closes and removes the temporary file.
func (t *Temp) Discard() {
	t.Close()
	os.Remove(t.Name())
}

// Commit syncs the temporary file and renames it to d's name
// (docs/READINGS.md D-H3: the store is written atomically), then syncs the
// directory so the name lasts. The file is removed if any step fails.
func (t *Temp) Commit(d [32]byte) error {
	err := t.Chmod(0o644)
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(t.Name(), t.s.Path(d))
	}
	if err != nil {
		os.Remove(t.Name())
		return err
	}
	if dir, err := os.Open(string(t.s)); err == nil {
		dir.Sync()
		dir.Close()
	}
	return nil
}
