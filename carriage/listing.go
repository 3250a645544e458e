package carriage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/strictjson"
)

// SetDigestMismatch is docs/READINGS.md D-H3's code for bytes whose SHA-256 is not
// the digest they were asked under; a held file of a listing whose length
// or SHA-256 is not the listing's is refused with it.
const SetDigestMismatch refusal.Code = "set_digest_mismatch"

// UsagePath is the top-level path whose file a listing binds as its usage
// statement (§18.1); a file of that name at any other path binds nothing.
const UsagePath = "wai-usage.json"

// ListedFile is one file of a wai.prior.set listing (D-H1).
type ListedFile struct {
	Path   string
	Length uint64
	SHA256 [32]byte
}

// Listing is a wai.prior.set listing: its files in ascending byte order of
// their paths, no path twice (D-H1).
type Listing struct {
	Files []ListedFile
}

// CheckPath applies D-H1's path rule: 1 to 255 bytes of '!' to
// '~' without '\', split by '/' into non-empty parts none of which is "."
// or "..".
func CheckPath(p string) error {
	if len(p) < 1 || len(p) > 255 {
		return fmt.Errorf("path %q: %d bytes, not 1 to 255", p, len(p))
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < '!' || c > '~' || c == '\\' {
			return fmt.Errorf("path %q: byte 0x%02x at %d is not '!' to '~' other than '\\'", p, c, i)
		}
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("path %q: a part %q (parts are non-empty and not . or ..)", p, part)
		}
	}
	return nil
}

// Marshal writes the listing's canonical JSON (D-H1; §8.5 of
// integer-operators), the bytes whose SHA-256 is the set's digest. It
// refuses a path that breaks the rule, paths out of order or a path twice.
func (l *Listing) Marshal() ([]byte, error) {
	files := make([]any, len(l.Files))
	for i, f := range l.Files {
		if err := CheckPath(f.Path); err != nil {
			return nil, err
		}
		if i > 0 && l.Files[i-1].Path >= f.Path {
			return nil, fmt.Errorf("listing: path %q after %q: paths ascend, each once", f.Path, l.Files[i-1].Path)
		}
		files[i] = map[string]any{"length": f.Length, "path": f.Path, "sha256": hex.EncodeToString(f.SHA256[:])}
	}
	return cjson.Marshal(map[string]any{"files": files, "kind": "wai-prior-set"})
}

// ReadListing reads a wai.prior.set listing: exactly the canonical bytes
// Marshal writes for it (D-H1). A listing that does not read
// leaves the set not held (prior_not_held, SPEC §3.1).
func ReadListing(b []byte) (*Listing, error) {
	bad := func(format string, args ...any) (*Listing, error) {
		return nil, refusal.New(PriorNotHeld, "listing: "+format, args...)
	}
	v, err := strictjson.Parse(b, 3)
	if err != nil {
		return bad("not JSON as D-H1 writes it: %v", err)
	}
	if v.Kind != strictjson.Object || len(v.Members) != 2 || v.Members[0].Name != "files" || v.Members[1].Name != "kind" {
		return bad(`not an object of exactly "files" and "kind"`)
	}
	if k := v.Members[1].Value; k.Kind != strictjson.String || k.Str != "wai-prior-set" {
		return bad(`kind is not "wai-prior-set"`)
	}
	fv := v.Members[0].Value
	if fv.Kind != strictjson.Array {
		return bad("files is not an array")
	}
	l := &Listing{Files: make([]ListedFile, 0, len(fv.Elems))}
	for i, e := range fv.Elems {
		if e.Kind != strictjson.Object || len(e.Members) != 3 {
			return bad("file %d is not an object of length, path and sha256", i)
		}
		var f ListedFile
		for j, m := range e.Members {
			if m.Name != []string{"length", "path", "sha256"}[j] || m.Value.Kind != strictjson.String {
				return bad("file %d is not an object of the strings length, path and sha256, in that order", i)
			}
		}
		n, s := e.Members[0].Value.Str, e.Members[2].Value.Str
		f.Path = e.Members[1].Value.Str
		if f.Length, err = strconv.ParseUint(n, 10, 64); err != nil || n != strconv.FormatUint(f.Length, 10) {
			return bad("file %d: length %q is not a canonical integer of 0 to 2^64 - 1", i, n)
		}
		if len(s) != 64 || strings.ToLower(s) != s {
			return bad("file %d: sha256 %q is not 64 lower-case hexadecimal digits", i, s)
		}
		if _, err := hex.Decode(f.SHA256[:], []byte(s)); err != nil {
			return bad("file %d: sha256 %q is not 64 lower-case hexadecimal digits", i, s)
		}
		l.Files = append(l.Files, f)
	}
	canon, err := l.Marshal()
	if err != nil {
		return bad("%v", err)
	}
	if !bytes.Equal(canon, b) {
		return bad("not canonical JSON (§8.5: no whitespace, \\\" and \\\\ the only escapes)")
	}
	return l, nil
}

// ListDir writes the listing of every file under dir, by its path
// relative to dir with '/' between parts. A file that is not a regular
// file, or whose path breaks D-H1's rule, is an error.
func ListDir(dir string) ([]byte, error) {
	l := &Listing{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		f := ListedFile{Path: filepath.ToSlash(rel)}
		if err := CheckPath(f.Path); err != nil {
			return err
		}
		r, err := os.Open(p)
		if err != nil {
			return err
		}
		defer r.Close()
		h := sha256.New()
		n, err := io.Copy(h, r)
		if err != nil {
			return err
		}
		f.Length = uint64(n)
		h.Sum(f.SHA256[:0])
		l.Files = append(l.Files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// WalkDir visits in lexical order of names within each directory,
	// which is not the byte order of whole paths ("a/b" against "a.c").
	sort.Slice(l.Files, func(i, j int) bool { return l.Files[i].Path < l.Files[j].Path })
	return l.Marshal()
}

// HeldSet is a wai.prior.set a sink holds: its digest (the SHA-256 of its
// listing), its listing and the statement bound to it, nil when it has
// none (§18.1: it then states no terms).
type HeldSet struct {
	Digest  [32]byte
	Listing *Listing
	Usage   *Usage
}

// Hold reads a listing and checks every file it names as open yields it
// (by path, or from a store by digest: the caller's choice), each of the
// length and SHA-256 the listing states, in the listing's order; then it
// reads the file of the top-level path wai-usage.json, where the listing
// has one, as the set's usage statement (§18.1). A statement that does not
// read leaves the set not held (set_usage_malformed). open's error for a
// file is the file not held (prior_not_held).
func Hold(listing []byte, open func(ListedFile) (io.ReadCloser, error)) (*HeldSet, error) {
	l, err := ReadListing(listing)
	if err != nil {
		return nil, err
	}
	s := &HeldSet{Digest: sha256.Sum256(listing), Listing: l}
	var bound *ListedFile
	var statement []byte
	for i, f := range l.Files {
		top := f.Path == UsagePath
		b, err := holdFile(f, open, top && f.Length <= MaxUsage)
		if err != nil {
			return nil, err
		}
		if top {
			bound, statement = &l.Files[i], b
		}
	}
	if bound == nil {
		return s, nil
	}
	// §18.1: the bound statement, read once every file is held.
	notHeld := "the listing's bound statement " + UsagePath + " does not read, so the set is not held: "
	if bound.Length > MaxUsage {
		return nil, refusal.New(SetUsageMalformed, notHeld+"%d bytes, past §18.1's 65 536", bound.Length)
	}
	if s.Usage, err = ReadUsage(statement); err != nil {
		var r *refusal.Error
		if errors.As(err, &r) {
			err = errors.New(r.Msg)
		}
		return nil, refusal.New(SetUsageMalformed, notHeld+"%v", err)
	}
	return s, nil
}

// holdFile checks one file's length and SHA-256, reading at most one byte
// past its stated length; with keep it returns the file's bytes.
func holdFile(f ListedFile, open func(ListedFile) (io.ReadCloser, error), keep bool) ([]byte, error) {
	r, err := open(f)
	if err != nil {
		return nil, refusal.New(PriorNotHeld, "listing: file %s is not held: %v", f.Path, err)
	}
	defer r.Close()
	h := sha256.New()
	var kept bytes.Buffer
	w := io.Writer(h)
	if keep {
		w = io.MultiWriter(h, &kept)
	}
	n, err := io.Copy(w, io.LimitReader(r, int64(min(f.Length, 1<<63-2))+1))
	if err != nil {
		return nil, refusal.New(PriorNotHeld, "listing: file %s is not held: %v", f.Path, err)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	// D-H1: the file is the listing's when both its length and its
	// SHA-256 are. The length is checked on its own: a listing may state a
	// length one short of the bytes whose SHA-256 it states, and the file's
	// first f.Length+1 bytes would then match the digest.
	if uint64(n) > f.Length {
		return nil, refusal.New(SetDigestMismatch, "listing: file %s runs past the listing's %d bytes", f.Path, f.Length)
	}
	if uint64(n) != f.Length || sum != f.SHA256 {
		return nil, refusal.New(SetDigestMismatch, "listing: file %s: %d bytes of SHA-256 %x, not the listing's %d bytes of %x", f.Path, n, sum, f.Length, f.SHA256)
	}
	return kept.Bytes(), nil
}
