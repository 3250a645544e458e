// Package serve serves a sink's store as a set root (prior-carriage.md §15):
// the resource with SHA-256 D at /.well-known/wai-sets/<D>, whole or by
// Range (§19.2), with ETag the quoted digest, and coded as dcz against a
// held set a request names in Available-Dictionary (§16, RFC 9842). A set
// whose bound statement says redistribute: false is not served (403) unless
// the server is its origin (§18.1).
//
// Use New over a store.Store and mount the Server as an http.Handler; the
// CLI's `waiops prior serve` does so with graceful shutdown.
//
// # Readings
//
// docs/READINGS.md, section "Serving (carriage/serve)",
// states the readings this package follows.
package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/dcz"
	"github.com/waiops/waiops/carriage/fetch"
	"github.com/waiops/waiops/carriage/store"
)

// CacheBytes is the most bytes of coded bodies a Server keeps.
const CacheBytes = 256 << 20

// maxListing bounds the files read as candidate listings while scanning.
const maxListing = 16 << 20

// Server serves a store as a set root.
type Server struct {
	store  store.Store
	origin bool

	mu       sync.Mutex
	scanned  time.Time         // the store directory's modification time at the last scan
	withheld map[[32]byte]bool // resources a bound statement keeps from others
	cache    map[[64]byte][]byte
	cached   int
}

// New serves store; origin serves even the sets whose bound statement says
// redistribute: false (§18.1: their origin may).
func New(store store.Store, origin bool) *Server {
	return &Server{store: store, origin: origin, cache: map[[64]byte][]byte{}}
}

// digestPath reads /.well-known/wai-sets/<64 lower-case hex digits>.
func digestPath(p string) ([32]byte, bool) {
	var d [32]byte
	k, ok := strings.CutPrefix(p, fetch.WellKnown)
	if !ok || len(k) != 64 || strings.ToLower(k) != k {
		return d, false
	}
	_, err := hex.Decode(d[:], []byte(k))
	return d, err == nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	d, ok := digestPath(r.URL.Path)
	if !ok || !s.store.Holds(d) {
		http.NotFound(w, r)
		return
	}
	if !s.origin && s.isWithheld(d) {
		// §18.1: redistribute false; only the origin serves it.
		http.Error(w, "this set's terms keep it from redistribution", http.StatusForbidden)
		return
	}
	w.Header().Set("Vary", "Accept-Encoding, Available-Dictionary")
	if dict, ok := s.dictionary(r, d); ok {
		if body, err := s.coded(d, dict); err == nil {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Encoding", "dcz")
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
			return
		}
	}
	f, err := os.Open(s.store.Path(d))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("ETag", `"`+hex.EncodeToString(d[:])+`"`)
	// Range, 206, Content-Range and 416 are http.ServeContent's.
	http.ServeContent(w, r, "", time.Time{}, f)
}

// dictionary is the held set a whole request names in Available-Dictionary
// (RFC 9842 §2.2: a structured-field byte sequence, :<base64>:) when it
// accepts dcz, other than d itself.
func (s *Server) dictionary(r *http.Request, d [32]byte) ([32]byte, bool) {
	var dict [32]byte
	if r.Header.Get("Range") != "" || !acceptsDcz(r.Header.Values("Accept-Encoding")) {
		return dict, false
	}
	v := r.Header.Values("Available-Dictionary")
	if len(v) != 1 {
		return dict, false
	}
	b64, ok := strings.CutPrefix(strings.TrimSpace(v[0]), ":")
	if b64, ok = strings.CutSuffix(b64, ":"); !ok {
		return dict, false
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(b) != 32 {
		return dict, false
	}
	copy(dict[:], b)
	return dict, dict != d && s.store.Holds(dict)
}

// acceptsDcz reports whether Accept-Encoding lists dcz with a q other than 0.
func acceptsDcz(values []string) bool {
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(item), ";")
			if strings.EqualFold(strings.TrimSpace(name), "dcz") {
				q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
				return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
			}
		}
	}
	return false
}

// coded is d coded as dcz against dict, from the cache or made now.
func (s *Server) coded(d, dict [32]byte) ([]byte, error) {
	var key [64]byte
	copy(key[:], d[:])
	copy(key[32:], dict[:])
	s.mu.Lock()
	body, ok := s.cache[key]
	s.mu.Unlock()
	if ok {
		return body, nil
	}
	pred, err := os.ReadFile(s.store.Path(dict))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(s.store.Path(d))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if err := dcz.Encode(&b, pred, f); err != nil {
		return nil, err
	}
	body = b.Bytes()
	s.mu.Lock()
	if s.cached+len(body) > CacheBytes {
		clear(s.cache)
		s.cached = 0
	}
	if len(body) <= CacheBytes {
		s.cache[key] = body
		s.cached += len(body)
	}
	s.mu.Unlock()
	return body, nil
}

// isWithheld reports whether a bound statement keeps d from others,
// scanning the store again when its directory has changed.
func (s *Server) isWithheld(d [32]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	fi, err := os.Stat(string(s.store))
	if err != nil {
		return true
	}
	if s.withheld == nil || !fi.ModTime().Equal(s.scanned) {
		s.withheld = s.scan()
		s.scanned = fi.ModTime()
	}
	return s.withheld[d]
}

// scan finds every resource of the store whose bound statement says
// redistribute: false (§18.1): sealed sets by their header, listings by
// their top-level wai-usage.json.
func (s *Server) scan() map[[32]byte]bool {
	out := map[[32]byte]bool{}
	ents, err := os.ReadDir(string(s.store))
	if err != nil {
		return out
	}
	for _, e := range ents {
		d, ok := digestPath(fetch.WellKnown + e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		for _, k := range s.keeps(d) {
			out[k] = true
		}
	}
	return out
}

// keeps is what resource d's bound statement withholds: nothing, d (a
// sealed set), or d and its files (a listing).
func (s *Server) keeps(d [32]byte) [][32]byte {
	f, err := os.Open(s.store.Path(d))
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	// A sealed set's header says what it binds (§18.2); ReadHeader refuses
	// anything else at its magic.
	if h, err := carriage.ReadHeader(f, fi.Size()); err == nil {
		if len(h.Usage) > 0 {
			if u, err := carriage.ReadUsage(h.Usage); err == nil && !u.Redistribute {
				return [][32]byte{d}
			}
		}
		return nil
	}
	// A listing (DECISIONS H1) begins {"files":[ and binds the statement at
	// its top-level path wai-usage.json (§18.1), where that is held.
	var magic [10]byte
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	if n, _ := io.ReadFull(f, magic[:]); n != 10 || string(magic[:]) != `{"files":[` || fi.Size() > maxListing {
		return nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	b, err := io.ReadAll(f)
	if err != nil || sha256.Sum256(b) != d {
		return nil
	}
	l, err := carriage.ReadListing(b)
	if err != nil {
		return nil
	}
	for _, lf := range l.Files {
		if lf.Path != carriage.UsagePath || lf.Length > carriage.MaxUsage {
			continue
		}
		ub, err := os.ReadFile(s.store.Path(lf.SHA256))
		if err != nil || sha256.Sum256(ub) != lf.SHA256 {
			return nil
		}
		if u, err := carriage.ReadUsage(ub); err != nil || u.Redistribute {
			return nil
		}
		out := [][32]byte{d}
		for _, lf := range l.Files {
			out = append(out, lf.SHA256)
		}
		return out
	}
	return nil
}
