package fetch

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestWriteback: 20 MiB written in steps of 3 MiB reach the file whole, and
// each 8 MiB step behind the writer is handed to writeback once, in order:
// [0, 9 MiB) at 9 MiB, [9, 18 MiB) at 18 MiB; the tail is the commit's.
func TestWriteback(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "wb"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got [][2]int64
	w := &writeback{f: f, start: func(_ *os.File, off, n int64) { got = append(got, [2]int64{off, n}) }}
	s := set(20<<20, 61)
	for b := s; len(b) > 0; {
		k := min(len(b), 3<<20)
		if n, err := w.Write(b[:k]); n != k || err != nil {
			t.Fatal(n, err)
		}
		b = b[k:]
	}
	if want := [][2]int64{{0, 9 << 20}, {9 << 20, 9 << 20}}; !reflect.DeepEqual(got, want) {
		t.Errorf("handed %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(f.Name()); !bytes.Equal(b, s) {
		t.Error("the file is not what was written")
	}
	newWriteback(f).start(f, 0, 1<<20) // the system's own takes any range
}
