package drivers

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite vectors/certificates from WriteCorpus")

// corpusDir is the committed §14.3 corpus, relative to this package.
const corpusDir = "../vectors/certificates"

// readTree maps every file under dir to its bytes.
func readTree(t *testing.T, dir string) map[string][]byte {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCorpus regenerates the corpus and compares it byte for byte with the
// committed one; -update rewrites the committed one.
func TestCorpus(t *testing.T) {
	if *update {
		if err := os.RemoveAll(corpusDir); err != nil {
			t.Fatal(err)
		}
		if err := WriteCorpus(corpusDir); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	if err := WriteCorpus(tmp); err != nil {
		t.Fatal(err)
	}
	got, want := readTree(t, tmp), readTree(t, corpusDir)
	for name, b := range got {
		if w, ok := want[name]; !ok || !bytes.Equal(b, w) {
			t.Errorf("%s differs from the committed corpus (rerun with -update if the change is meant)", name)
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s is committed but no longer generated", name)
		}
	}
}
