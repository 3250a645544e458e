package serve

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/store"
)

// A symlink in the store named for the digest of what it
// points to is not served, nor is a regular file whose bytes are not its
// name, nor one changed in place after it was verified.
func TestServeOnlyVerifiedRegularFiles(t *testing.T) {
	s := store.Store(t.TempDir())
	host := []byte("host-name\n")
	outside := filepath.Join(t.TempDir(), "hostname")
	os.WriteFile(outside, host, 0o644)
	hd := sha256.Sum256(host)
	if err := os.Symlink(outside, s.Path(hd)); err != nil {
		t.Fatal(err)
	}
	liar := pattern(1000, 9)
	named := sha256.Sum256([]byte("another set"))
	os.WriteFile(s.Path(named), liar, 0o644)
	good := pattern(5000, 10)
	k := put(t, s, good)
	root := start(t, s, false)
	for name, d := range map[string][32]byte{"symlink": hd, "misnamed": named} {
		if resp, _ := get(t, root+hexOf(d), nil); resp.StatusCode != 404 {
			t.Errorf("%s: %s, want 404", name, resp.Status)
		}
	}
	if resp, _ := get(t, root+k, nil); resp.StatusCode != 200 {
		t.Fatalf("a held set: %s", resp.Status)
	}
	// Rewritten in place, the same size and modification time: its stamp
	// (change time) moves, it is hashed again, and it no longer matches.
	p := s.Path(sha256.Sum256(good))
	fi, _ := os.Stat(p)
	time.Sleep(20 * time.Millisecond)
	bad := pattern(5000, 11)
	os.WriteFile(p, bad, 0o644)
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	if resp, _ := get(t, root+k, nil); resp.StatusCode != 404 {
		t.Errorf("changed in place: %s, want 404", resp.Status)
	}
}

// A scan is racy while the directory's later time is within racyWindow
// of the scan's start.
func TestRacy(t *testing.T) {
	t0 := time.Unix(2_000_000_000, 0)
	for _, c := range []struct {
		mod, change, began time.Duration
		racy               bool
	}{
		{0, 0, 3 * time.Second, false},
		{0, 0, 2 * time.Second, true}, // exactly the window: racy
		{0, 1500 * time.Millisecond, 3 * time.Second, true},
		{1500 * time.Millisecond, 0, 3 * time.Second, true},
		{0, 0, -time.Second, true}, // a directory time past the scan
	} {
		x := &index{dir: store.Stamp{Mod: t0.Add(c.mod), Change: t0.Add(c.change)}, began: t0.Add(c.began)}
		if got := x.racy(); got != c.racy {
			t.Errorf("%+v: racy %v", c, got)
		}
	}
}

// A file past maxListing that begins as a listing does is withheld: the
// scan does not read what it binds.
func TestServeLargeListingWithheld(t *testing.T) {
	defer func(n int64) { maxListing = n }(maxListing)
	maxListing = 64
	s := store.Store(t.TempDir())
	file := pattern(100, 15)
	big := listing(t, map[string][]byte{"a.bin": file}) // no statement, but past the cap
	kBig, kFile := put(t, s, big), put(t, s, file)
	root := start(t, s, false)
	if resp, _ := get(t, root+kBig, nil); resp.StatusCode != 403 {
		t.Errorf("a listing past the cap: %s, want 403", resp.Status)
	}
	if resp, _ := get(t, root+kFile, nil); resp.StatusCode != 200 {
		t.Errorf("a file: %s, want 200", resp.Status)
	}
}

// A set is hashed once while its stamp stays: 50 requests, one hash.
func TestServeHashesOnce(t *testing.T) {
	s := store.Store(t.TempDir())
	k := put(t, s, pattern(3000, 12))
	srv := New(s, false)
	root := startHandler(t, srv)
	for range 50 {
		if resp, _ := get(t, root+k, nil); resp.StatusCode != 200 {
			t.Fatal(resp.Status)
		}
	}
	srv.idx.mu.Lock()
	hashed := srv.idx.hashed
	srv.idx.mu.Unlock()
	if hashed != 1 {
		t.Errorf("hashed %d times, want 1", hashed)
	}
}

// The fail-open this guards against: a statement and its listing renamed into the
// store while the directory's modification time is set back to what the
// last scan saw are still in force at the next request (the directory's
// change time moved).
func TestServeWithheldDirectoryTimeKept(t *testing.T) {
	for _, w := range []time.Duration{racyWindow, 0} {
		// With no racy window the directory's change time alone decides.
		defer func(w time.Duration) { racyWindow = w }(racyWindow)
		racyWindow = w
		withheldDirectoryTimeKept(t)
	}
}

func withheldDirectoryTimeKept(t *testing.T) {
	s := store.Store(t.TempDir())
	file := pattern(500, 13)
	kFile := put(t, s, file)
	old := time.Unix(1_000_000_000, 0)
	os.Chtimes(string(s), old, old)
	root := start(t, s, false)
	if resp, _ := get(t, root+kFile, nil); resp.StatusCode != 200 {
		t.Fatalf("before: %s", resp.Status)
	}
	usage := statement(false)
	lb := listing(t, map[string][]byte{"a.bin": file, carriage.UsagePath: usage})
	put(t, s, usage)
	kList := put(t, s, lb)
	os.Chtimes(string(s), old, old)
	for _, k := range []string{kFile, kList} {
		if resp, _ := get(t, root+k, nil); resp.StatusCode != 403 {
			t.Errorf("%s: %s, want 403", k[:12], resp.Status)
		}
	}
}

// A listing whose bound statement is not held here withholds itself and
// its files until the statement is held and says redistribute true.
func TestServeStatementNotHeldWithholds(t *testing.T) {
	s := store.Store(t.TempDir())
	file := pattern(700, 14)
	usage := statement(true)
	kFile := put(t, s, file)
	kList := put(t, s, listing(t, map[string][]byte{"a.bin": file, carriage.UsagePath: usage}))
	root := start(t, s, false)
	for _, k := range []string{kFile, kList} {
		if resp, _ := get(t, root+k, nil); resp.StatusCode != 403 {
			t.Errorf("statement not held, %s: %s, want 403", k[:12], resp.Status)
		}
	}
	put(t, s, usage)
	for _, k := range []string{kFile, kList} {
		if resp, _ := get(t, root+k, nil); resp.StatusCode != 200 {
			t.Errorf("statement held, %s: %s, want 200", k[:12], resp.Status)
		}
	}
}

func statement(redistribute bool) []byte {
	r := "false"
	if redistribute {
		r = "true"
	}
	return []byte(`{"ai_usage":null,"content_derived":true,"kind":"wai-set-usage","licence":null,"redistribute":` + r + `,"terms":null}`)
}

// listing is the canonical listing of files, by path.
func listing(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	l := &carriage.Listing{}
	for _, p := range []string{"a.bin", carriage.UsagePath} {
		if b, ok := files[p]; ok {
			l.Files = append(l.Files, carriage.ListedFile{Path: p, Length: uint64(len(b)), SHA256: sha256.Sum256(b)})
		}
	}
	b, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
