package carriage

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/refusal"
)

func TestCheckPath(t *testing.T) {
	for _, c := range []struct {
		p  string
		ok bool
	}{
		{"a", true}, {"a/b.c", true}, {"!~", true}, {strings.Repeat("a", 255), true},
		{"", false}, {strings.Repeat("a", 256), false}, {"a b", false}, {`a\b`, false},
		{"/a", false}, {"a/", false}, {"a//b", false}, {"./a", false}, {"a/..", false},
		{"..a/.b", true}, {"é", false}, {"a\x7f", false},
	} {
		if err := CheckPath(c.p); (err == nil) != c.ok {
			t.Errorf("%q: %v, want ok %v", c.p, err, c.ok)
		}
	}
}

// TestListingBytes: the listing of two files is docs/READINGS.md D-H1's canonical
// JSON, written out by hand, and reads back.
func TestListingBytes(t *testing.T) {
	a, b := sha256.Sum256([]byte("x")), sha256.Sum256(nil)
	l := &Listing{Files: []ListedFile{{"a.c", 1, a}, {"a/b", 0, b}}}
	got, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"files":[{"length":"1","path":"a.c","sha256":"%x"},{"length":"0","path":"a/b","sha256":"%x"}],"kind":"wai-prior-set"}`, a, b)
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	back, err := ReadListing(got)
	if err != nil || len(back.Files) != 2 || back.Files[1] != l.Files[1] {
		t.Fatalf("%v %v", back, err)
	}
	for _, c := range []struct{ name, in string }{
		{"whitespace", strings.Replace(want, `,"kind"`, `, "kind"`, 1)},
		{"newline", want + "\n"},
		{"members out of order", strings.Replace(want, `"length":"1","path":"a.c"`, `"path":"a.c","length":"1"`, 1)},
		{"length a number", strings.Replace(want, `"length":"1"`, `"length":1`, 1)},
		{"length leading zero", strings.Replace(want, `"length":"1"`, `"length":"01"`, 1)},
		{"length past 2^64", strings.Replace(want, `"length":"1"`, `"length":"18446744073709551616"`, 1)},
		{"sha256 upper case", strings.Replace(want, fmt.Sprintf("%x", a), fmt.Sprintf("%X", a), 1)},
		{"sha256 short", strings.Replace(want, fmt.Sprintf("%x", a), fmt.Sprintf("%x", a[:31]), 1)},
		{"paths out of order", strings.Replace(strings.Replace(want, `"a.c"`, `"a/c"`, 1), `"a/b"`, `"a.b"`, 1)},
		{"path twice", strings.Replace(want, `"a/b"`, `"a.c"`, 1)},
		{"path breaks the rule", strings.Replace(want, `"a/b"`, `"a//b"`, 1)},
		{"escaped slash", strings.Replace(want, `"a/b"`, `"a\/b"`, 1)},
		{"kind other", strings.Replace(want, `wai-prior-set`, `wai-prior-sets`, 1)},
		{"a member more", strings.Replace(want, `"kind"`, `"kinds":"x","kind"`, 1)},
		{"kind twice", strings.Replace(want, `}],`, `}],"kind":"wai-prior-set",`, 1)},
	} {
		_, err := ReadListing([]byte(c.in))
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != PriorNotHeld {
			t.Errorf("%s: %v, want prior_not_held", c.name, err)
		}
	}
	// Marshal refuses what a listing cannot hold.
	for _, bad := range []*Listing{
		{Files: []ListedFile{{Path: "b"}, {Path: "a"}}},
		{Files: []ListedFile{{Path: "a"}, {Path: "a"}}},
		{Files: []ListedFile{{Path: "a/../b"}}},
	} {
		if _, err := bad.Marshal(); err == nil {
			t.Errorf("%v: written", bad.Files)
		}
	}
}

// writeSet writes files under a temporary directory and returns it with
// its listing.
func writeSet(t *testing.T, files map[string]string) (string, []byte) {
	dir := t.TempDir()
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := ListDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, l
}

func byPath(dir string) func(ListedFile) (io.ReadCloser, error) {
	return func(f ListedFile) (io.ReadCloser, error) {
		return os.Open(filepath.Join(dir, filepath.FromSlash(f.Path)))
	}
}

func TestListDir(t *testing.T) {
	_, l := writeSet(t, map[string]string{"a/b": "1", "a.c": "22", "z": ""})
	got, err := ReadListing(l)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range got.Files {
		paths = append(paths, f.Path)
	}
	// '.' (0x2e) sorts before '/' (0x2f): byte order, not WalkDir's.
	if strings.Join(paths, " ") != "a.c a/b z" || got.Files[0].Length != 2 || got.Files[0].SHA256 != sha256.Sum256([]byte("22")) {
		t.Errorf("%v", got.Files)
	}
}

func TestHold(t *testing.T) {
	good := statement(`"MIT"`, `"https://example.com/t"`)
	for _, c := range []struct {
		name  string
		files map[string]string
		code  refusal.Code
		terms string // the bound statement's terms; "-" for no statement
	}{
		{"top-level statement", map[string]string{"w.bin": "w", UsagePath: good}, "", "https://example.com/t"},
		{"statement that does not read", map[string]string{"w.bin": "w", UsagePath: statement(`"MIT and BSD"`, `null`)}, SetUsageMalformed, ""},
		{"statement past 65 536 bytes", map[string]string{"w.bin": "w", UsagePath: strings.Repeat(" ", 65537)}, SetUsageMalformed, ""},
		{"a/wai-usage.json binds nothing", map[string]string{"w.bin": "w", "a/" + UsagePath: "not a statement"}, "", "-"},
		{"no statement", map[string]string{"w.bin": "w"}, "", "-"},
	} {
		dir, l := writeSet(t, c.files)
		s, err := Hold(l, byPath(dir))
		var r *refusal.Error
		switch {
		case c.code != "":
			if !errors.As(err, &r) || r.Code != c.code {
				t.Errorf("%s: %v, want %s", c.name, err, c.code)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case s.Digest != sha256.Sum256(l):
			t.Errorf("%s: digest is not the listing's SHA-256", c.name)
		case c.terms == "-" && s.Usage != nil:
			t.Errorf("%s: a statement bound", c.name)
		case c.terms != "-" && (s.Usage == nil || *s.Usage.Terms != c.terms):
			t.Errorf("%s: %+v", c.name, s.Usage)
		}
	}
	// A file changed, shortened, lengthened or missing after listing.
	dir, l := writeSet(t, map[string]string{"w.bin": "wai"})
	for _, c := range []struct {
		name, bytes string
		code        refusal.Code
	}{
		{"changed", "waj", SetDigestMismatch},
		{"short", "wa", SetDigestMismatch},
		{"long", "wai!", SetDigestMismatch},
		{"missing", "", PriorNotHeld},
	} {
		p := filepath.Join(dir, "w.bin")
		os.Remove(p)
		if c.bytes != "" {
			os.WriteFile(p, []byte(c.bytes), 0o644)
		}
		_, err := Hold(l, byPath(dir))
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	// The statement is read only once every file is held.
	dir, l = writeSet(t, map[string]string{UsagePath: "{}", "z": "z"})
	os.WriteFile(filepath.Join(dir, "z"), []byte("y"), 0o644)
	if _, err := Hold(l, byPath(dir)); err == nil || !bytes.Contains([]byte(err.Error()), []byte(string(SetDigestMismatch))) {
		t.Errorf("a bad statement and a changed file: %v, want set_digest_mismatch", err)
	}
}

// TestHoldLength: a held file is the listing's only when both its length
// and its SHA-256 are the listing's (D-H1). A listing whose length
// misstates its file's (one short of the file's bytes, whose SHA-256 it
// states, or of a file that runs on past them) leaves the set not held.
func TestHoldLength(t *testing.T) {
	dir, _ := writeSet(t, map[string]string{"w.bin": "wai", "v.bin": "waiops"})
	for _, c := range []struct {
		name string
		f    ListedFile
	}{
		{"length one short of the file", ListedFile{"w.bin", 2, sha256.Sum256([]byte("wai"))}},
		{"a prefix's SHA-256, the file runs on", ListedFile{"v.bin", 2, sha256.Sum256([]byte("wai"))}},
	} {
		l, err := (&Listing{Files: []ListedFile{c.f}}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		_, err = Hold(l, byPath(dir))
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != SetDigestMismatch {
			t.Errorf("%s: %v, want set_digest_mismatch", c.name, err)
		}
	}
}
