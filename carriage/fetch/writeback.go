package fetch

import "os"

// writebackStep is how many bytes a fetch writes before it asks the kernel
// to begin writing them to disk.
const writebackStep = 8 << 20

// writeback writes to a temporary file from its start, and every
// writebackStep bytes asks the kernel to begin writing the step behind it
// to disk (startWriteback), so that the sync of the commit (H3: the store
// is written atomically) waits for the last step only, not the whole set.
type writeback struct {
	f       *os.File
	start   func(f *os.File, off, n int64) // startWriteback; a test's recorder
	n, done int64                          // bytes written; bytes handed to start
}

func newWriteback(f *os.File) *writeback { return &writeback{f: f, start: startWriteback} }

func (w *writeback) Write(b []byte) (int, error) {
	n, err := w.f.Write(b)
	w.n += int64(n)
	if w.n-w.done >= writebackStep {
		w.start(w.f, w.done, w.n-w.done)
		w.done = w.n
	}
	return n, err
}
