package store

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

// A committed temporary file is held under its digest's hex name and no
// temporary file is left; a discarded one leaves nothing.
func TestCommitDiscard(t *testing.T) {
	s := Store(filepath.Join(t.TempDir(), "new"))
	b := []byte("abc")
	d := sha256.Sum256(b)
	tf, err := s.Create()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tf.Write(b); err != nil {
		t.Fatal(err)
	}
	if s.Holds(d) {
		t.Fatal("held before Commit")
	}
	if err := tf.Commit(d); err != nil {
		t.Fatal(err)
	}
	// SHA-256("abc"), FIPS 180-2 appendix B.1.
	want := filepath.Join(string(s), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
	if s.Path(d) != want || !s.Holds(d) {
		t.Fatalf("Path = %s, Holds = %v", s.Path(d), s.Holds(d))
	}
	tf, err = s.Create()
	if err != nil {
		t.Fatal(err)
	}
	tf.Discard()
	if ents, _ := os.ReadDir(string(s)); len(ents) != 1 {
		t.Fatalf("store holds %d files, want 1", len(ents))
	}
	if got, err := s.ReadFile(d, 3); err != nil || string(got) != "abc" {
		t.Fatalf("ReadFile(3) = %q, %v", got, err)
	}
	if _, err := s.ReadFile(d, 2); err == nil {
		t.Fatal("ReadFile(2) of a 3-byte set: no error")
	}
}
