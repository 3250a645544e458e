package vectors

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
	// Beside are files the digest covers that are not in the §14.1 format
	// (the project's carriage cases, which conform runs beside the
	// fabrics), by relative path.
	Beside map[string][]byte
	// SHA256 is the SHA-256 of every file's bytes, Files' and Beside's
	// together, concatenated in sorted order of their relative paths.
	SHA256 string
}

// Open reads every *.jsonl file under each path (a file, or a directory
// walked recursively) line by line (Read). A line that cannot be read, an
// unknown member or outcome among them, is kept in its file's Unreadable:
// conform.Run counts it as one vector failed and gen.Check fails on it; it
// is never a skip.
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

// CarriageDir is the part of the project's corpus that conform runs beside
// the fabrics (prior-carriage §17–§19: files in, files out); the corpus
// digest covers it too.
const CarriageDir = "carriage"

// Project opens the project's corpus under root: those of its ProjectDirs
// that exist, with paths relative to root ("ops/conv.jsonl"), and every
// file under its CarriageDir in Beside.
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
	if err := c.beside(root, CarriageDir); err != nil {
		return nil, err
	}
	c.seal()
	return &c, nil
}

// beside reads every file under root/dir, if it exists, into Beside.
func (c *Corpus) beside(root, dir string) error {
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if c.Beside == nil {
			c.Beside = map[string][]byte{}
		}
		c.Beside[filepath.ToSlash(rel)] = b
		return err
	})
	if os.IsNotExist(err) {
		return nil
	}
	return err
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
	all := maps.Clone(c.Beside)
	if all == nil {
		all = map[string][]byte{}
	}
	for _, f := range c.Files {
		all[f.Rel] = f.Data
	}
	h := sha256.New()
	for _, rel := range slices.Sorted(maps.Keys(all)) {
		h.Write(all[rel])
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
