package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/dcz"
	"github.com/waiops/waiops/carriage/fetch"
	"github.com/waiops/waiops/carriage/store"
	"github.com/waiops/waiops/carriage/tree"
)

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 7
	for i := range b {
		x = x*1103515245 + 12345
		b[i] = byte(x >> 16)
	}
	return b
}

func put(t *testing.T, s store.Store, b []byte) string {
	t.Helper()
	d := sha256.Sum256(b)
	if err := os.WriteFile(s.Path(d), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(d[:])
}

func start(t *testing.T, s store.Store, origin bool) string {
	return startHandler(t, New(s, origin))
}

func startHandler(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + fetch.WellKnown
}

func hexOf(d [32]byte) string { return hex.EncodeToString(d[:]) }

func get(t *testing.T, u string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestServeWholeAndRange(t *testing.T) {
	s := store.Store(t.TempDir())
	b := pattern(10000, 1)
	k := put(t, s, b)
	root := start(t, s, false)
	resp, body := get(t, root+k, nil)
	if resp.StatusCode != 200 || !bytes.Equal(body, b) || resp.Header.Get("ETag") != `"`+k+`"` {
		t.Errorf("whole: %s, %d bytes, ETag %q", resp.Status, len(body), resp.Header.Get("ETag"))
	}
	resp, body = get(t, root+k, map[string]string{"Range": "bytes=1024-2047"})
	if resp.StatusCode != 206 || resp.Header.Get("Content-Range") != "bytes 1024-2047/10000" || !bytes.Equal(body, b[1024:2048]) {
		t.Errorf("range: %s %q %d bytes", resp.Status, resp.Header.Get("Content-Range"), len(body))
	}
	if resp, _ = get(t, root+k, map[string]string{"Range": "bytes=10000-10001"}); resp.StatusCode != 416 {
		t.Errorf("past the end: %s", resp.Status)
	}
	if resp, _ = get(t, root+k, map[string]string{"If-None-Match": `"` + k + `"`}); resp.StatusCode != 304 {
		t.Errorf("If-None-Match: %s", resp.Status)
	}
	for _, p := range []string{root + hex.EncodeToString(make([]byte, 32)), root + "abc", root[:len(root)-len(fetch.WellKnown)] + "/" + k} {
		if resp, _ = get(t, p, nil); resp.StatusCode != 404 {
			t.Errorf("%s: %s", p, resp.Status)
		}
	}
}

// TestServeDcz: a request naming a held set and accepting dcz gets the
// successor coded against it, which decodes to the successor; the fetcher
// holds it through the server.
func TestServeDcz(t *testing.T) {
	s := store.Store(t.TempDir())
	pred := pattern(200000, 2)
	succ := bytes.Clone(pred)
	for i := 0; i < len(succ); i += 1000 {
		succ[i]++
	}
	put(t, s, pred)
	k := put(t, s, succ)
	root := start(t, s, false)
	pd := sha256.Sum256(pred)
	named := ":" + base64.StdEncoding.EncodeToString(pd[:]) + ":"
	resp, body := get(t, root+k, map[string]string{"Accept-Encoding": "dcz, identity", "Available-Dictionary": named})
	if resp.Header.Get("Content-Encoding") != "dcz" || len(body) > len(succ)/10 {
		t.Fatalf("coded: %q, %d bytes", resp.Header.Get("Content-Encoding"), len(body))
	}
	var out bytes.Buffer
	if err := dcz.Decode(bytes.NewReader(body), pred, pd, &out); err != nil || !bytes.Equal(out.Bytes(), succ) {
		t.Fatalf("decode: %v", err)
	}
	// Not accepted, or with a range: identity.
	for _, h := range []map[string]string{
		{"Available-Dictionary": named},
		{"Accept-Encoding": "dcz;q=0, identity", "Available-Dictionary": named},
		{"Accept-Encoding": "dcz, identity", "Available-Dictionary": named, "Range": "bytes=0-99"},
	} {
		if resp, _ := get(t, root+k, h); resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%v: coded", h)
		}
	}
	sink := store.Store(t.TempDir())
	os.WriteFile(sink.Path(pd), pred, 0o644)
	var reports []fetch.Attempt
	f := &fetch.Fetcher{Store: sink, Report: func(a fetch.Attempt) { reports = append(reports, a) }}
	sd := sha256.Sum256(succ)
	if err := f.Fetch(context.Background(), sd, []string{root}, &pd); err != nil || len(reports) != 0 {
		t.Fatalf("fetch: %v %v", err, reports)
	}
	if got, _ := os.ReadFile(sink.Path(sd)); !bytes.Equal(got, succ) {
		t.Error("the held successor is not the set")
	}
}

// TestServeRedistribute: a listing whose bound statement says
// redistribute false, and its files, are 403 unless the server is the
// origin; so is a sealed set whose header's statement says so.
func TestServeRedistribute(t *testing.T) {
	s := store.Store(t.TempDir())
	root := start(t, s, false)
	free := pattern(100, 3)
	kFree := put(t, s, free)
	if resp, _ := get(t, root+kFree, nil); resp.StatusCode != 200 {
		t.Fatalf("before: %s", resp.Status)
	}
	usage := []byte(`{"ai_usage":null,"content_derived":true,"kind":"wai-set-usage","licence":null,"redistribute":false,"terms":null}`)
	file := pattern(500, 4)
	l := &carriage.Listing{Files: []carriage.ListedFile{
		{Path: "a.bin", Length: 500, SHA256: sha256.Sum256(file)},
		{Path: carriage.UsagePath, Length: uint64(len(usage)), SHA256: sha256.Sum256(usage)},
	}}
	lb, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	kUsage, kFile := put(t, s, usage), put(t, s, file)
	time.Sleep(10 * time.Millisecond) // a directory modification time of its own
	kList := put(t, s, lb)
	var key, kid, iv [16]byte
	var sealed bytes.Buffer
	if _, _, err := carriage.Seal(&sealed, bytes.NewReader(free), int64(len(free)), key, carriage.Header{KID: kid, IV: iv, Usage: usage}); err != nil {
		t.Fatal(err)
	}
	kSealed := put(t, s, sealed.Bytes())
	for _, k := range []string{kList, kFile, kUsage, kSealed} {
		if resp, _ := get(t, root+k, nil); resp.StatusCode != 403 {
			t.Errorf("%s: %s, want 403", k[:12], resp.Status)
		}
	}
	if resp, _ := get(t, root+kFree, nil); resp.StatusCode != 200 {
		t.Errorf("a free set: %s", resp.Status)
	}
	origin := start(t, s, true)
	for _, k := range []string{kList, kFile, kSealed} {
		if resp, _ := get(t, origin+k, nil); resp.StatusCode != 200 {
			t.Errorf("origin %s: %s", k[:12], resp.Status)
		}
	}
}

// TestServeTree: FetchTree over two servers.
func TestServeTree(t *testing.T) {
	set := pattern(300000, 5)
	h, err := tree.Write(bytes.NewReader(set), 2, "")
	if err != nil {
		t.Fatal(err)
	}
	a, b := store.Store(t.TempDir()), store.Store(t.TempDir())
	put(t, a, set)
	put(t, b, set)
	sink := store.Store(t.TempDir())
	f := &fetch.Fetcher{Store: sink}
	if err := f.FetchTree(context.Background(), h, []string{start(t, a, false), start(t, b, false)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(sink.Path(h.Inner)); !bytes.Equal(got, set) {
		t.Error("the held set is not the set")
	}
}

// codings counts the Content-Encoding of each response a handler sends.
type codings struct {
	h  http.Handler
	mu sync.Mutex
	n  map[string]int
}

func (c *codings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, r)
	c.mu.Lock()
	c.n[rec.Header().Get("Content-Encoding")]++
	c.mu.Unlock()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// TestServeListingSuccessor: a sink holding a predecessor listing fetches
// the successor's listing, then only the file that differs, coded against
// the predecessor's file at the same path (§15, §16); a file named
// wai-usage.json below the top level binds nothing (§18.1).
func TestServeListingSuccessor(t *testing.T) {
	shared := pattern(4000, 6)
	old := pattern(100000, 7)
	changed := bytes.Clone(old)
	for i := 0; i < len(changed); i += 700 {
		changed[i]++
	}
	notUsage := []byte("not a statement")
	mk := func(files map[string][]byte) []byte {
		l := &carriage.Listing{}
		for _, p := range []string{"a/wai-usage.json", "model.bin", "shared.bin"} {
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
	pred := mk(map[string][]byte{"model.bin": old, "shared.bin": shared})
	succ := mk(map[string][]byte{"model.bin": changed, "shared.bin": shared, "a/wai-usage.json": notUsage})
	origin := store.Store(t.TempDir())
	for _, b := range [][]byte{pred, succ, shared, old, changed, notUsage} {
		put(t, origin, b)
	}
	c := &codings{h: New(origin, false), n: map[string]int{}}
	srv := httptest.NewServer(c)
	defer srv.Close()
	sink := store.Store(t.TempDir())
	for _, b := range [][]byte{pred, shared, old} {
		put(t, sink, b)
	}
	f := &fetch.Fetcher{Store: sink}
	pd, sd := sha256.Sum256(pred), sha256.Sum256(succ)
	held, err := f.FetchListing(context.Background(), sd, []string{srv.URL + fetch.WellKnown}, &pd)
	if err != nil {
		t.Fatal(err)
	}
	if held.Usage != nil {
		t.Errorf("a/wai-usage.json bound a statement: %+v", held.Usage)
	}
	// The listing coded against the predecessor listing, model.bin against
	// the old model.bin, a/wai-usage.json plain (no predecessor at its
	// path), shared.bin not asked.
	if want := map[string]int{"dcz": 2, "": 1}; !reflect.DeepEqual(c.n, want) {
		t.Errorf("responses by coding %v, want %v", c.n, want)
	}
	if got, _ := os.ReadFile(sink.Path(sha256.Sum256(changed))); !bytes.Equal(got, changed) {
		t.Error("the changed file is not held")
	}
}
