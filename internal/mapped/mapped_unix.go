//go:build unix

package mapped

import (
	"os"

	"golang.org/x/sys/unix"
)

func mapFile(f *os.File, n int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, n, unix.PROT_READ, unix.MAP_SHARED)
}

func unmap(b []byte) error { return unix.Munmap(b) }
