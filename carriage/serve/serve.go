// Package serve serves a store as a set root (prior-carriage §15): the
// resource with SHA-256 D at /.well-known/wai-sets/<D>, whole or by Range
// (§19.2, RFC 9110 §14), with ETag the quoted digest, and coded as dcz
// against a held set a request names in Available-Dictionary (§16, RFC
// 9842). A set whose bound statement withholds it is not served (403)
// unless the server is its origin (§18.1).
//
// Use NewServer (or New, with the defaults) over a store.Store and mount
// the Server as an http.Handler, under HTTPServer's timeouts and Run's
// graceful shutdown; the CLI's `waiops prior serve` does so. A sink has no
// use for it: it fetches (package fetch).
//
// # Readings
//
// docs/READINGS.md, section "Serving (carriage/serve)",
// states the readings this package follows.
package serve

import (
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/waiops/waiops/carriage/fetch"
	"github.com/waiops/waiops/carriage/store"
)

// Config is what a Server serves and the bounds it holds to; a zero bound
// takes its default.
type Config struct {
	Store store.Store
	// Origin serves even the sets whose bound statement withholds them
	// (§18.1: their origin may).
	Origin bool
	// Codings is the most dcz codings made at once (default 2), and
	// CodingBytes the most memory they are charged together (codingCost;
	// default 1 GiB): a request past either gets the identity body.
	Codings     int
	CodingBytes int64
	// CacheBytes is the most bytes of coded bodies kept (default 256 MiB).
	CacheBytes int64
	// WriteIdle is how long one write of up to writeChunk bytes may take
	// before the connection is closed (default 30 s).
	WriteIdle time.Duration
	// AccessLog, when set, gets one line per response.
	AccessLog io.Writer
}

// Server serves a store as a set root.
type Server struct {
	cfg   Config
	idx   *index
	coder *coder
	m     *metrics
	log   *accessLog
}

// New serves s with the default bounds and no access log.
func New(s store.Store, origin bool) *Server { return NewServer(Config{Store: s, Origin: origin}) }

// NewServer serves c.Store under c's bounds. The store is scanned (every
// resource hashed once) before it returns.
func NewServer(c Config) *Server {
	if c.Codings <= 0 {
		c.Codings = 2
	}
	if c.CodingBytes <= 0 {
		c.CodingBytes = 1 << 30
	}
	if c.CacheBytes <= 0 {
		c.CacheBytes = 256 << 20
	}
	if c.WriteIdle <= 0 {
		c.WriteIdle = 30 * time.Second
	}
	s := &Server{cfg: c, idx: newIndex(c.Store), log: &accessLog{w: c.AccessLog}}
	s.coder = newCoder(s.openHeld, c.Codings, c.CodingBytes, c.CacheBytes)
	s.m = newMetrics(s.coder)
	s.coder.note = func(outcome string) { s.m.codings.WithLabelValues(outcome).Inc() }
	s.idx.lookup([32]byte{}, false) // the first scan
	return s
}

// openHeld opens a verified resource for the coder.
func (s *Server) openHeld(d [32]byte) (setFile, int64, bool) {
	f, fi, ok := s.idx.open(d)
	if !ok {
		return nil, 0, false
	}
	return f, fi.Size(), true
}

// digestPath reads /.well-known/wai-sets/<64 lower-case hex digits>.
func digestPath(p string) ([32]byte, bool) {
	k, ok := strings.CutPrefix(p, fetch.WellKnown)
	if !ok {
		return [32]byte{}, false
	}
	return digestName(k)
}

// ServeHTTP answers a GET or HEAD of a resource under the set root, under
// per-write deadlines, counting it in the metrics and the access log.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	dw := &deadlined{ResponseWriter: w, rc: http.NewResponseController(w), idle: s.cfg.WriteIdle}
	dw.arm()
	rec := &recorder{ResponseWriter: dw}
	coding := s.serve(rec, r)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	s.m.requests.WithLabelValues(r.Method, strconv.Itoa(rec.status)).Inc()
	s.m.bytes.WithLabelValues(coding).Add(float64(rec.n))
	s.log.line(r, rec, coding, time.Since(began))
}

// refuse answers with code, counting reason; it returns the coding "-".
func (s *Server) refuse(w http.ResponseWriter, code int, reason, why string) string {
	s.m.refusals.WithLabelValues(reason).Inc()
	http.Error(w, why, code)
	return "-"
}

// serve answers r and returns the response's coding: identity, dcz, or -
// for a refusal.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) string {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return s.refuse(w, http.StatusMethodNotAllowed, "method", "method not allowed")
	}
	d, ok := digestPath(r.URL.Path)
	if !ok {
		return s.refuse(w, http.StatusNotFound, "not_held", "not held here")
	}
	e, withheld, ok := s.idx.lookup(d, false)
	if !ok {
		return s.refuse(w, http.StatusNotFound, "not_held", "not held here")
	}
	if withheld && !s.cfg.Origin {
		// §18.1: redistribute false; only the origin serves it.
		return s.refuse(w, http.StatusForbidden, "withheld", "this set's terms keep it from redistribution")
	}
	h := w.Header()
	h.Set("Vary", "Accept-Encoding, Available-Dictionary")
	h.Set("Accept-Ranges", "bytes") // RFC 9110 §14.3: byte ranges of the set are served
	h.Set("Content-Type", "application/octet-stream")
	rangeFor(r, e.stamp.Size)
	if dict, ok := s.dictionary(r, d); ok {
		if body, ok := s.codedBody(r, d, dict); ok {
			h.Set("Content-Encoding", "dcz")
			h.Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				w.Write(body)
			}
			return "dcz"
		}
	}
	f, _, ok := s.idx.open(d)
	if !ok {
		h.Del("Vary")
		h.Del("Accept-Ranges")
		return s.refuse(w, http.StatusNotFound, "not_held", "not held here")
	}
	defer f.Close()
	h.Set("ETag", `"`+hex.EncodeToString(d[:])+`"`)
	// 206, Content-Range, 416 and the preconditions are ServeContent's,
	// over the Range rangeFor left.
	http.ServeContent(w, r, "", time.Time{}, f)
	return "identity"
}

// codedBody is d coded against dict for r: from the cache for a HEAD (a
// HEAD never codes), from the coder for a GET.
func (s *Server) codedBody(r *http.Request, d, dict [32]byte) ([]byte, bool) {
	if r.Method == http.MethodHead {
		body, _ := s.coder.cachedBody(d, dict)
		return body, body != nil
	}
	body, hit, err := s.coder.body(r.Context(), d, dict)
	if hit {
		s.m.cacheHits.Inc()
	}
	return body, err == nil
}

// dictionary is the held set a whole GET or HEAD names in
// Available-Dictionary (RFC 9842 §2.2: a structured-field byte sequence,
// :<base64>:) when it accepts dcz, other than d itself and not withheld
// (unless the server is the origin).
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
	if dict == d {
		return dict, false
	}
	_, withheld, ok := s.idx.lookup(dict, false)
	return dict, ok && (!withheld || s.cfg.Origin)
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
