package vectors

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CorpusFile is one vector file of a corpus.
type CorpusFile struct {
	Path  string // as found on disk
	Rel   string // relative to the path it was found under, slash-separated
	Group string // the operator or graph family the report tallies it under
	Data  []byte
	*File
}

// Corpus is a set of vector files in the §14.1 format, in sorted order of
// their relative paths.
type Corpus struct {
	Files []CorpusFile
	// SHA256 is the SHA-256 of the files' bytes concatenated in that order.
	SHA256 string
}

// Open reads every *.jsonl file under each path (a file, or a directory
// walked recursively) line by line (Read). A line that cannot be read, an
// unknown member or outcome among them, is kept in its file's Unreadable:
// Run counts it as one vector failed and Check fails on it; it is never a
// skip.
func Open(paths []string) (*Corpus, error) {
	var c Corpus
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			err = c.add(p, filepath.Base(p))
		} else {
			err = c.walk(p, p)
		}
		if err != nil {
			return nil, err
		}
	}
	c.seal()
	return &c, nil
}

// ProjectDirs are the §14.1 parts of the project's corpus root; its other
// directories (prior/, certificates/) hold other formats.
var ProjectDirs = []string{"ops", "graphs", "stage"}

// Project opens the project's corpus under root: those of its ProjectDirs
// that exist, with paths relative to root ("ops/conv.jsonl").
func Project(root string) (*Corpus, error) {
	if _, err := os.Stat(root); err != nil {
		return nil, err
	}
	var c Corpus
	for _, d := range ProjectDirs {
		dir := filepath.Join(root, d)
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		if err := c.walk(dir, root); err != nil {
			return nil, err
		}
	}
	c.seal()
	return &c, nil
}

// walk adds the *.jsonl files under dir, named relative to base.
func (c *Corpus) walk(dir, base string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		rel, err := filepath.Rel(base, path)
		if err != nil {
			return err
		}
		return c.add(path, rel)
	})
}

// seal sorts the files and computes the corpus digest.
func (c *Corpus) seal() {
	sort.SliceStable(c.Files, func(i, j int) bool { return c.Files[i].Rel < c.Files[j].Rel })
	h := sha256.New()
	for _, f := range c.Files {
		h.Write(f.Data)
	}
	c.SHA256 = hex.EncodeToString(h.Sum(nil))
}

func (c *Corpus) add(path, rel string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	c.Files = append(c.Files, CorpusFile{Path: path, Rel: rel, Group: group(rel), Data: b, File: Read(b)})
	return nil
}

// group names what a file's vectors are tallied under: the operator for a
// per-operator file (<operator>.jsonl), "graphs/<name>" and "stage/<op>"
// for graph and stage files (§14.1, §14.2).
func group(rel string) string {
	stem := strings.TrimSuffix(filepath.Base(rel), ".jsonl")
	dir := filepath.Base(filepath.Dir(filepath.FromSlash(rel)))
	if dir == "graphs" || dir == "stage" {
		return dir + "/" + stem
	}
	return stem
}
