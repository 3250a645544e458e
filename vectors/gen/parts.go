package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/waiops/waiops/carriage/corpus"
	"github.com/waiops/waiops/internal/demo"
	"github.com/waiops/waiops/internal/priorcorpus"
	"github.com/waiops/waiops/internal/setcorpus"
	"github.com/waiops/waiops/internal/stagecorpus"
	"github.com/waiops/waiops/vectors"
)

// A Part is one generator of committed data under the corpus root. It owns
// its directories: every file under them is one it generates, and `waiops
// vectors check` requires them back byte for byte, no file more or less.
type Part struct {
	// Name is what gen and check report it by, and what CheckPart takes.
	Name string
	// Dirs are the directories it owns, relative to the corpus root.
	Dirs []string
	// Files builds its files in memory, by slash-separated path relative
	// to the corpus root; each lies under one of Dirs.
	Files func() (map[string][]byte, error)
}

// Parts are every generator of the repository's committed data (vectors/),
// the one place to register another: `waiops vectors gen --out vectors`
// writes them all and nothing else writes there.
var Parts = []Part{
	// The graph vectors of §14.1 (one operator) and §14.2 (several).
	{"graphs", []string{"ops", "graphs"}, Generate},
	// The stage-operator vectors of §14.1 (package stage).
	{"stage", []string{"stage"}, stageFiles},
	// The prior-carriage corpus (prior-carriage §14, package prior).
	{"prior", []string{"prior"}, under("prior", priorcorpus.CorpusFiles)},
	// The §14.3 certificates and lowered graphs (package drivers).
	{"certificates", []string{"certificates"}, under("certificates", setcorpus.CorpusFiles)},
	// The prior-carriage corpus of §17 to §19 (package carriage/corpus).
	{"carriage", []string{"carriage"}, under("carriage", corpus.Files)},
	// The demo set that decodes to a picture (package internal/demo). It
	// lies beside the corpus root, in examples/demo, being for people to
	// run rather than a vector.
	{"demo", []string{"../examples/demo"}, under("../examples/demo", demo.Files)},
}

// under places a generator's files, named relative to dir, under dir.
func under(dir string, files func() (map[string][]byte, error)) func() (map[string][]byte, error) {
	return func() (map[string][]byte, error) {
		fs, err := files()
		if err != nil {
			return nil, err
		}
		out := make(map[string][]byte, len(fs))
		for n, b := range fs {
			out[dir+"/"+n] = b
		}
		return out, nil
	}
}

// stageFiles is the stage package's corpus under stage/. Each file must read
// back strictly in the §14.1 format and marshal to the same bytes, so that a
// member or a form the format does not know fails here.
func stageFiles() (map[string][]byte, error) {
	fs, err := stagecorpus.CorpusFiles()
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(fs))
	for n, b := range fs {
		f, err := vectors.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("stage/%s: %w", n, err)
		}
		m, err := f.Marshal()
		if err != nil {
			return nil, fmt.Errorf("stage/%s: %w", n, err)
		}
		if err := sameBytes("stage/"+n, b, m); err != nil {
			return nil, fmt.Errorf("%w (stage writes a form the §14.1 format does not)", err)
		}
		out["stage/"+n] = b
	}
	return out, nil
}

// files runs the part's generator and checks each path lies under its
// directories.
func (p Part) files() (map[string][]byte, error) {
	fs, err := p.Files()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	for n := range fs {
		if !p.owns(n) {
			return nil, fmt.Errorf("%s: generates %s, outside %s", p.Name, n, strings.Join(p.Dirs, ", "))
		}
	}
	return fs, nil
}

func (p Part) owns(rel string) bool {
	for _, d := range p.Dirs {
		if strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

// committed reads every file under the part's directories in root, by
// slash-separated path relative to root. A directory that is absent holds
// nothing.
func (p Part) committed(root string) (map[string][]byte, error) {
	have := map[string][]byte{}
	for _, d := range p.Dirs {
		dir := filepath.Join(root, d)
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		t, err := readTree(dir)
		if err != nil {
			return nil, err
		}
		for n, b := range t {
			have[d+"/"+n] = b
		}
	}
	return have, nil
}

// PartSummary is what gen wrote or check proved of one part.
type PartSummary struct {
	Name         string
	Files, Bytes int
	// Removed are the files gen deleted because no generator writes them
	// any more.
	Removed []string
}

func summarize(p Part, fs map[string][]byte) PartSummary {
	s := PartSummary{Name: p.Name, Files: len(fs)}
	for _, b := range fs {
		s.Bytes += len(b)
	}
	return s
}

// WriteParts writes every part under root (the repository's corpus root is
// vectors/) and removes any other file under their directories, so that a
// vector no generator writes any more leaves the tree.
func WriteParts(root string) ([]PartSummary, error) {
	var out []PartSummary
	for _, p := range Parts {
		fs, err := p.files()
		if err != nil {
			return out, err
		}
		have, err := p.committed(root)
		if err != nil {
			return out, err
		}
		if err := WriteTree(root, fs); err != nil {
			return out, err
		}
		s := summarize(p, fs)
		for _, n := range Names(have) {
			if _, ok := fs[n]; ok {
				continue
			}
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(n))); err != nil {
				return out, err
			}
			s.Removed = append(s.Removed, n)
		}
		out = append(out, s)
	}
	return out, nil
}

// CheckParts regenerates every part in memory and requires root's
// directories of it to hold exactly those files, byte for byte. It stops at
// the first part that differs.
func CheckParts(root string) ([]PartSummary, error) {
	var out []PartSummary
	for _, p := range Parts {
		s, err := CheckPart(root, p.Name)
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}

// CheckPart is CheckParts for the part of that name.
func CheckPart(root, name string) (PartSummary, error) {
	for _, p := range Parts {
		if p.Name != name {
			continue
		}
		fs, err := p.files()
		if err != nil {
			return PartSummary{}, err
		}
		have, err := p.committed(root)
		if err != nil {
			return PartSummary{}, err
		}
		if err := sameTree("", have, fs, true); err != nil {
			return PartSummary{}, fmt.Errorf("%s: %w", p.Name, err)
		}
		return summarize(p, fs), nil
	}
	return PartSummary{}, fmt.Errorf("vectors: no part named %q", name)
}
