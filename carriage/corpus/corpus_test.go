package corpus

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const dir = "../../vectors/carriage"

var update = flag.Bool("update", false, "rewrite "+dir)

// TestCorpus: the committed corpus is Files() byte for byte, no file more
// or less, and every case in it passes.
func TestCorpus(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		os.RemoveAll(dir)
		for n, b := range files {
			p := filepath.Join(dir, filepath.FromSlash(n))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	have := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			have[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	for n, b := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil || string(got) != string(b) {
			t.Errorf("%s: committed bytes differ from Files() (go test ./carriage/corpus -update)", n)
		}
		delete(have, n)
	}
	for n := range have {
		t.Errorf("%s: committed, not generated", n)
	}
	r, err := Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Failures {
		t.Error(f)
	}
	if r.Passed == 0 {
		t.Error("no case passed")
	}
}

// TestReach: every code a family lists is reached by a case.
func TestReach(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	lines := string(files["cases.jsonl"])
	for _, c := range reach {
		if !strings.Contains(lines, `{"refuse":"`+string(c)+`"}`) {
			t.Errorf("no case reaches %s", c)
		}
	}
}
