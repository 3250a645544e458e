package gen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/waiops/waiops/stage"
	"github.com/waiops/waiops/vectors"
)

// Summary counts what a check or a generation covered.
type Summary struct {
	Files, Vectors, Decodes, Stage int
}

func (s Summary) String() string {
	return fmt.Sprintf("%d files: %d graph vectors with %d decodes, %d stage vectors", s.Files, s.Vectors, s.Decodes, s.Stage)
}

// Recompute writes a vector file again from its graph bytes and inputs
// alone: every load, profile list and expectation of a graph vector
// (Compute), and every stage vector's expect (stage.ExpectOf).
func Recompute(f *vectors.File) ([]byte, error) {
	out := vectors.File{Graph: make([]vectors.Vector, len(f.Graph)), Stage: make([]vectors.Stage, len(f.Stage))}
	for i, v := range f.Graph {
		v.Decodes = append([]vectors.Decode{}, v.Decodes...)
		if err := Compute(&v); err != nil {
			return nil, err
		}
		out.Graph[i] = v
	}
	for i, s := range f.Stage {
		s.Expect = stage.ExpectOf(s.Op, s.Modes, s.In)
		if s.Expect == nil {
			return nil, fmt.Errorf("%s: stage operator %q has no evaluator", s.ID, s.Op)
		}
		out.Stage[i] = s
	}
	return out.Marshal()
}

// Check recomputes every file of c and fails at the first whose bytes
// differ, naming its first differing line.
func Check(c *vectors.Corpus) (Summary, error) {
	var s Summary
	for _, cf := range c.Files {
		if len(cf.Unreadable) > 0 {
			return s, fmt.Errorf("%s: %w", cf.Rel, cf.Unreadable[0])
		}
		b, err := Recompute(cf.File)
		if err != nil {
			return s, fmt.Errorf("%s: %w", cf.Rel, err)
		}
		if err := sameBytes(cf.Rel, cf.Data, b); err != nil {
			return s, err
		}
		s.Files++
		s.Vectors += len(cf.Graph)
		s.Stage += len(cf.Stage)
		for _, v := range cf.Graph {
			s.Decodes += len(v.Decodes)
		}
	}
	return s, nil
}

// sameBytes reports the first line where got differs from want.
func sameBytes(name string, want, got []byte) error {
	if bytes.Equal(want, got) {
		return nil
	}
	wl, gl := bytes.SplitAfter(want, []byte{'\n'}), bytes.SplitAfter(got, []byte{'\n'})
	for i := range max(len(wl), len(gl)) {
		if i >= len(wl) || i >= len(gl) || !bytes.Equal(wl[i], gl[i]) {
			return fmt.Errorf("%s: line %d differs from its recomputation", name, i+1)
		}
	}
	return fmt.Errorf("%s differs from its recomputation", name)
}

// WriteTree writes files (paths relative to dir) under dir.
func WriteTree(dir string, files map[string][]byte) error {
	for _, n := range Names(files) {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readTree reads every file under dir by slash-separated relative path.
func readTree(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(path)
		return err
	})
	return files, err
}

// sameTree requires every file of want in have with the same bytes and,
// when exact, no other file in have.
func sameTree(prefix string, have, want map[string][]byte, exact bool) error {
	for _, n := range Names(want) {
		h, ok := have[n]
		if !ok {
			return fmt.Errorf("%s%s is missing", prefix, n)
		}
		if err := sameBytes(prefix+n, h, want[n]); err != nil {
			return err
		}
	}
	for _, n := range Names(have) {
		if _, ok := want[n]; exact && !ok {
			return fmt.Errorf("%s%s is not generated", prefix, n)
		}
	}
	return nil
}
