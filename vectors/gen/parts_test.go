package gen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// withParts runs f with Parts replaced by ps.
func withParts(t *testing.T, ps []Part, f func()) {
	t.Helper()
	saved := Parts
	Parts = ps
	defer func() { Parts = saved }()
	f()
}

func fixed(files map[string]string) func() (map[string][]byte, error) {
	return func() (map[string][]byte, error) {
		out := map[string][]byte{}
		for n, s := range files {
			out[n] = []byte(s)
		}
		return out, nil
	}
}

func write(t *testing.T, root, rel, s string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWritePartsOwnsItsDirs: gen writes a part's files, removes a stale
// file under its directory and leaves other directories alone; check then
// passes, and fails on a file more, a file less, or a changed byte.
func TestWritePartsOwnsItsDirs(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/old.jsonl", "stale\n")
	write(t, root, "b/keep.md", "not a part's\n")
	ps := []Part{{"a", []string{"a"}, fixed(map[string]string{"a/x.jsonl": "1\n", "a/sub/y.jsonl": "2\n"})}}
	withParts(t, ps, func() {
		sums, err := WriteParts(root)
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != 1 || sums[0].Files != 2 || sums[0].Bytes != 4 || !slices.Equal(sums[0].Removed, []string{"a/old.jsonl"}) {
			t.Fatalf("summary %+v", sums)
		}
		if _, err := os.Stat(filepath.Join(root, "a", "old.jsonl")); !os.IsNotExist(err) {
			t.Errorf("a/old.jsonl survived: %v", err)
		}
		if b, err := os.ReadFile(filepath.Join(root, "b", "keep.md")); err != nil || string(b) != "not a part's\n" {
			t.Errorf("b/keep.md: %q %v", b, err)
		}
		if _, err := CheckParts(root); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name, want string
			edit       func()
		}{
			{"extra", "a/extra.jsonl is not generated", func() { write(t, root, "a/extra.jsonl", "3\n") }},
			{"missing", "a/sub/y.jsonl is missing", func() { os.Remove(filepath.Join(root, "a", "sub", "y.jsonl")) }},
			{"changed", "a/x.jsonl: line 1 differs", func() { write(t, root, "a/x.jsonl", "9\n") }},
		} {
			if _, err := WriteParts(root); err != nil {
				t.Fatal(err)
			}
			c.edit()
			if _, err := CheckParts(root); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %q", c.name, err, c.want)
			}
		}
	})
}

// TestPartStaysInItsDirs: a generator that names a file outside its
// directories fails before anything is written.
func TestPartStaysInItsDirs(t *testing.T) {
	root := t.TempDir()
	ps := []Part{{"a", []string{"a"}, fixed(map[string]string{"ab/x.jsonl": "1\n"})}}
	withParts(t, ps, func() {
		if _, err := WriteParts(root); err == nil || !strings.Contains(err.Error(), "generates ab/x.jsonl, outside a") {
			t.Fatalf("got %v", err)
		}
	})
	if _, err := os.Stat(filepath.Join(root, "ab")); !os.IsNotExist(err) {
		t.Errorf("ab/ was written: %v", err)
	}
}
