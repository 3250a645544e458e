package mapped

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A file's first n bytes read back through the mapping; a file shorter
// than n is refused.
func TestOpen(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no mapping on this system")
	}
	p := filepath.Join(t.TempDir(), "f")
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<12) // 64 KiB
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := Open(f, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Bytes(), want[:1000]) {
		t.Fatal("the mapped bytes are not the file's")
	}
	m.Close()
	m, err = Open(f, int64(len(want)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Bytes(), want) {
		t.Fatal("the mapped bytes are not the file's")
	}
	m.Close()
	if _, err := Open(f, int64(len(want))+1); err == nil {
		t.Fatal("a mapping past the file's end: no error")
	}
}
