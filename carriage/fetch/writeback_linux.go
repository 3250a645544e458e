package fetch

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to begin writing f's bytes [off, off+n) to
// disk and does not wait for it (sync_file_range(2), SYNC_FILE_RANGE_WRITE).
// It is a hint: an error leaves the work to the commit's sync.
func startWriteback(f *os.File, off, n int64) {
	unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
