package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/store"
	"github.com/waiops/waiops/refusal"
)

func code(err error) refusal.Code { return codeOf(err) }

// set is n bytes of a pattern seeded by seed.
func set(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1103515245 + 12345
		b[i] = byte(x >> 16)
	}
	return b
}

// holder serves sets by digest at /.well-known/wai-sets/<digest> (Range
// through http.ServeContent), and counts the requests for each.
type holder struct {
	mu    sync.Mutex
	sets  map[string][]byte
	asked map[string]int
}

func newHolder(sets ...[]byte) *holder {
	h := &holder{sets: map[string][]byte{}, asked: map[string]int{}}
	for _, s := range sets {
		h.add(s)
	}
	return h
}

func (h *holder) add(b []byte) string {
	d := sha256.Sum256(b)
	k := hex.EncodeToString(d[:])
	h.mu.Lock()
	h.sets[k] = b
	h.mu.Unlock()
	return k
}

func (h *holder) count(k string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.asked[k]
}

func (h *holder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k := strings.TrimPrefix(r.URL.Path, WellKnown)
	h.mu.Lock()
	b, ok := h.sets[k]
	h.asked[k]++
	h.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

// server starts an httptest server on loopback and returns its root.
func server(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL + WellKnown
}

// closedRoot is a root on a port nothing listens on.
func closedRoot(t *testing.T) string {
	s := httptest.NewServer(http.NotFoundHandler())
	u := s.URL
	s.Close()
	return u + WellKnown
}

type recorder struct {
	mu  sync.Mutex
	got []string
}

func (r *recorder) report(a Attempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	line := a.Kind + " " + a.URL + ": " + string(a.Code())
	if a.Kind == "piece" {
		line = "piece " + strconv.Itoa(a.Piece) + " " + a.URL + ": " + string(a.Code())
		if a.Pieces > 1 {
			line = "pieces " + strconv.Itoa(a.Piece) + "-" + strconv.Itoa(a.Piece+a.Pieces-1) + " " + a.URL + ": " + string(a.Code())
		}
	}
	r.got = append(r.got, line)
}

func newFetcher(t *testing.T) (*Fetcher, *recorder) {
	rec := &recorder{}
	// Runs of one piece of the 1 KiB pieces the tree tests fetch, so that
	// each request asks one piece; TestTreeRuns asks runs.
	return &Fetcher{Store: store.Store(t.TempDir()), Timeout: 2 * time.Second, RunBytes: 1024, Report: rec.report}, rec
}

// heldOnly requires the store to hold exactly the sets given, each under
// its digest, and no temporary file.
func heldOnly(t *testing.T, s store.Store, sets ...[]byte) {
	t.Helper()
	want := map[string][]byte{}
	for _, b := range sets {
		d := sha256.Sum256(b)
		want[hex.EncodeToString(d[:])] = b
	}
	ents, _ := os.ReadDir(string(s))
	if len(ents) != len(want) {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the store holds %v, want %d sets", names, len(want))
	}
	for k, b := range want {
		got, err := os.ReadFile(filepath.Join(string(s), k))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("the store's %s is not the set (%v)", k[:12], err)
		}
	}
}

func TestRoots(t *testing.T) {
	got, err := Roots([]string{"https://a.example/s/", "http://b.example:8080/"},
		[]string{"http://b.example:8080/", "https://c.example/x/"}, "https://a.example/s/anything?q=1")
	want := []string{"https://a.example/s/", "http://b.example:8080/", "https://c.example/x/", "https://a.example/.well-known/wai-sets/"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Roots = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"https://a.example/s", "ftp://a.example/", "/s/", "https:///s/", "https://a.example/s/?x=1"} {
		if err := CheckRoot(bad); err == nil {
			t.Errorf("CheckRoot(%q) admits it", bad)
		}
	}
	if _, err := Roots(nil, nil, "a.example"); err == nil {
		t.Error("an origin that is no URL is admitted")
	}
}

// TestFetchPassesOver puts a root of each fault of READINGS D-H3 before one
// that serves the set: each is passed over with its code, in order, and
// the set is held from the last.
func TestFetchPassesOver(t *testing.T) {
	s := set(5000, 1)
	d := sha256.Sum256(s)
	other := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(set(5000, 2)) }))
	silent := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	stalls := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5000")
		w.Write(s[:100])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	gzip := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(s)
	}))
	missing := server(t, newHolder())
	longByLength := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "4001")
		w.Write(s[:4001])
	}))
	longByBody := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 100; i++ { // chunked: no Content-Length; 500 000 bytes offered
			w.Write(s)
			w.(http.Flusher).Flush()
		}
	}))
	early := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5000")
		w.Write(s[:2500]) // net/http closes the connection: the body ends early
	}))
	good := server(t, newHolder(s))
	f, rec := newFetcher(t)
	f.Timeout = 300 * time.Millisecond
	f.MaxBytes = 5000
	bounded := &Fetcher{Store: f.Store, Timeout: f.Timeout, MaxBytes: 4000, Report: rec.report}
	// The bound's faults need a bound below the set: a fetcher of 4000
	// bytes over those roots alone.
	if err := bounded.Fetch(context.Background(), d, []string{longByLength, longByBody}, nil); code(err) != carriage.PriorNotHeld {
		t.Fatalf("bound: %v", err)
	}
	closed := closedRoot(t)
	roots := []string{other, silent, stalls, gzip, missing, closed, early, good}
	if err := f.Fetch(context.Background(), d, roots, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"root " + longByLength + ": set_too_large",
		"root " + longByBody + ": set_too_large",
		"root " + other + ": set_digest_mismatch",
		"root " + silent + ": set_location_unavailable",
		"root " + stalls + ": set_location_unavailable",
		"root " + gzip + ": content_coding_present",
		"root " + missing + ": set_location_unavailable",
		"root " + closed + ": set_location_unavailable",
		"root " + early + ": set_location_unavailable",
	}
	if !reflect.DeepEqual(rec.got, want) {
		t.Errorf("reports\n%s\nwant\n%s", strings.Join(rec.got, "\n"), strings.Join(want, "\n"))
	}
	heldOnly(t, f.Store, s)
}

// TestFetchNotHeld: every root passed over is prior_not_held, naming each
// root's reason, and nothing is held.
func TestFetchNotHeld(t *testing.T) {
	s := set(3000, 3)
	d := sha256.Sum256(s)
	other := server(t, newHolder(set(3000, 4)))
	wrong := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(set(3000, 4)) }))
	f, _ := newFetcher(t)
	err := f.Fetch(context.Background(), d, []string{other, wrong}, nil)
	var r *refusal.Error
	if !errors.As(err, &r) || r.Code != carriage.PriorNotHeld {
		t.Fatalf("Fetch = %v, want prior_not_held", err)
	}
	for _, want := range []string{"root " + other + ": set_location_unavailable", "root " + wrong + ": set_digest_mismatch"} {
		if !strings.Contains(r.Msg, want) {
			t.Errorf("the reason %q does not name %q", r.Msg, want)
		}
	}
	heldOnly(t, f.Store)
}

// TestMaxBytesInclusive: a set of exactly the bound is held; one byte more
// is set_too_large, by Content-Length and by body alike.
func TestMaxBytesInclusive(t *testing.T) {
	s := set(1000, 5)
	d := sha256.Sum256(s)
	root := server(t, newHolder(s))
	chunked := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(s[:500])
		w.(http.Flusher).Flush()
		w.Write(s[500:])
	}))
	for _, c := range []struct {
		bound uint64
		want  refusal.Code
	}{{999, TooLarge}, {1000, ""}} {
		for _, r := range []string{root, chunked} {
			f, rec := newFetcher(t)
			f.MaxBytes = c.bound
			err := f.Fetch(context.Background(), d, []string{r}, nil)
			if c.want == "" && err != nil {
				t.Errorf("bound %d: %v", c.bound, err)
			}
			if c.want != "" && (len(rec.got) != 1 || !strings.HasSuffix(rec.got[0], string(c.want))) {
				t.Errorf("bound %d from %s: %v", c.bound, r, rec.got)
			}
		}
	}
}

// TestListing fetches a listing and its files from two roots (§15): the
// listing and one file from the first, the other from the second, a file
// the store holds not asked at all; then a file no root holds.
func TestListing(t *testing.T) {
	usage := []byte(`{"ai_usage":null,"content_derived":true,"kind":"wai-set-usage","licence":"CC-BY-4.0","redistribute":false,"terms":null}`)
	a, b, shared := set(2000, 6), set(3000, 7), set(1500, 8)
	l := listing(t, map[string][]byte{"a.bin": a, "dir/b.bin": b, "shared.bin": shared, carriage.UsagePath: usage})
	ld := sha256.Sum256(l)
	first := newHolder(l, a, usage)
	second := newHolder(b, shared)
	r1, r2 := server(t, first), server(t, second)
	f, rec := newFetcher(t)
	// The store holds the file the predecessor shares.
	os.WriteFile(f.Store.Path(sha256.Sum256(shared)), shared, 0o644)
	held, err := f.FetchListing(context.Background(), ld, []string{r1, r2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if held.Digest != ld || held.Usage == nil || held.Usage.Redistribute || !held.Usage.ContentDerived {
		t.Errorf("held %x usage %+v", held.Digest, held.Usage)
	}
	sd := sha256.Sum256(shared)
	if n := second.count(hex.EncodeToString(sd[:])); n != 0 {
		t.Errorf("a held file was asked %d times", n)
	}
	want := []string{"root " + r1 + ": set_location_unavailable"} // dir/b.bin is not on the first
	if !reflect.DeepEqual(rec.got, want) {
		t.Errorf("reports %v, want %v", rec.got, want)
	}
	heldOnly(t, f.Store, l, a, b, shared, usage)

	// A file no root holds: the set is not held.
	lost := set(100, 9)
	l2 := listing(t, map[string][]byte{"a.bin": a, "lost.bin": lost})
	f2, _ := newFetcher(t)
	first.add(l2)
	if _, err := f2.FetchListing(context.Background(), sha256.Sum256(l2), []string{r1, r2}, nil); code(err) != carriage.PriorNotHeld || !strings.Contains(err.Error(), "lost.bin") {
		t.Errorf("a file no root holds: %v", err)
	}
	// A bound statement that does not read leaves the set not held.
	bad := []byte(`{"kind":"wai-set-usage"}`)
	l3 := listing(t, map[string][]byte{"a.bin": a, carriage.UsagePath: bad})
	first.add(l3)
	first.add(bad)
	f3, _ := newFetcher(t)
	if _, err := f3.FetchListing(context.Background(), sha256.Sum256(l3), []string{r1}, nil); code(err) != carriage.SetUsageMalformed {
		t.Errorf("a bound statement that does not read: %v", err)
	}
	// Its files stay held, each verified on its own; the listing, not held,
	// is not stored.
	heldOnly(t, f3.Store, a, bad)
	// Nor is a listing whose file no root holds.
	heldOnly(t, f2.Store, a)
}

func listing(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	l := &carriage.Listing{}
	for p, b := range files {
		l.Files = append(l.Files, carriage.ListedFile{Path: p, Length: uint64(len(b)), SHA256: sha256.Sum256(b)})
	}
	sortFiles(l.Files)
	out, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sortFiles(fs []carriage.ListedFile) { // by path, as a listing orders them
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			if fs[j].Path < fs[i].Path {
				fs[i], fs[j] = fs[j], fs[i]
			}
		}
	}
}
