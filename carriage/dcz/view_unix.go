//go:build unix

package dcz

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only and shared: a mapping of
// the page cache, which the kernel may drop and read again under memory
// pressure. The caller must not let f shrink while the mapping is in use
// (a store's sets are written once, under their digests).
func mapFile(f *os.File, size int) ([]byte, func(), error) {
	// A mapping past the file's end would fault where it is read.
	if st, err := f.Stat(); err != nil || st.Size() < int64(size) {
		return nil, nil, errors.New("the file is shorter than the predecessor's size")
	}
	b, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { unix.Munmap(b) }, nil
}
