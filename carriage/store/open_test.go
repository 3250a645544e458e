package store

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// Open opens a regular file of the store and refuses a symlink (even one
// to a file whose digest is its name), a directory and a pipe; Holds
// agrees.
func TestOpenRegularOnly(t *testing.T) {
	s := Store(t.TempDir())
	b := []byte("abc")
	d := sha256.Sum256(b)
	if err := os.WriteFile(s.Path(d), b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, fi, err := s.Open(d)
	if err != nil || fi.Size() != 3 {
		t.Fatalf("a regular file: %v", err)
	}
	f.Close()

	outside := filepath.Join(t.TempDir(), "hostname")
	other := []byte("a host name\n")
	os.WriteFile(outside, other, 0o644)
	od := sha256.Sum256(other)
	if err := os.Symlink(outside, s.Path(od)); err != nil {
		t.Fatal(err)
	}
	dir := sha256.Sum256([]byte("dir"))
	os.Mkdir(s.Path(dir), 0o755)
	cases := map[string][32]byte{"symlink": od, "directory": dir}
	if runtime.GOOS == "linux" {
		pipe := sha256.Sum256([]byte("pipe"))
		if err := syscall.Mkfifo(s.Path(pipe), 0o644); err != nil {
			t.Fatal(err)
		}
		cases["pipe"] = pipe
	}
	for name, d := range cases {
		if f, _, err := s.Open(d); !errors.Is(err, ErrNotRegular) {
			if f != nil {
				f.Close()
			}
			t.Errorf("%s: Open err %v, want ErrNotRegular", name, err)
		}
		if s.Holds(d) {
			t.Errorf("%s: held", name)
		}
	}
}

// Verify: SHA-256("abc") (FIPS 180-2 B.1) matches the file, a byte changed
// does not.
func TestVerify(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("abc"), 0o644)
	f, _ := os.Open(p)
	defer f.Close()
	want := [32]byte{0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad}
	f.Seek(2, 0) // Verify reads from the start whatever the offset
	if ok, err := Verify(f, want); !ok || err != nil {
		t.Fatalf("abc: %v %v", ok, err)
	}
	want[31] ^= 1
	if ok, _ := Verify(f, want); ok {
		t.Fatal("a changed digest verified")
	}
}

// A rewrite in place that keeps the size and restores the modification
// time still moves the Stamp (the change time, on Linux); a rename of
// another file over the name moves it (the inode).
func TestStampMoves(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the change time and inode are read on Linux only")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("abc"), 0o644)
	mod := time.Unix(1_000_000_000, 0)
	os.Chtimes(p, mod, mod)
	fi, _ := os.Stat(p)
	before := StampOf(fi)
	time.Sleep(20 * time.Millisecond) // past the file clock's tick
	os.WriteFile(p, []byte("abd"), 0o644)
	os.Chtimes(p, mod, mod)
	fi, _ = os.Stat(p)
	after := StampOf(fi)
	if after.Size != before.Size || !after.Mod.Equal(before.Mod) {
		t.Fatalf("the rewrite did not keep size and time: %+v %+v", before, after)
	}
	if after == before {
		t.Fatal("a rewrite in place left the Stamp as it was")
	}
	q := filepath.Join(dir, "g")
	os.WriteFile(q, []byte("abd"), 0o644)
	os.Chtimes(q, mod, mod)
	os.Rename(q, p)
	fi, _ = os.Stat(p)
	if renamed := StampOf(fi); renamed.Inode == after.Inode || renamed == after {
		t.Fatal("a file renamed over the name left the Stamp's inode as it was")
	}
}
