// Package fetch is the sink's half of prior-carriage §15, §16 and §19.2
// over HTTP (net/http): it fetches a set by digest from the roots it is
// given and holds it only when its SHA-256 is the digest asked (READINGS D-H2,
// H3), takes a successor as a dcz delta against a held predecessor (§16, H5),
// and fetches a large set by range, piece by piece, from several sources,
// each piece verified as it arrives (§19.2, H4).
//
// What it holds goes into a store.Store: a directory of files named by their
// SHA-256 in lower-case hex, each written to a temporary file in the
// directory, synced and renamed into place only once verified. Every
// refusal is a *refusal.Error carrying a code of prior-carriage §20 or
// READINGS D-H10. The server side is package serve.
//
// # Readings
//
// docs/READINGS.md, section "Fetching (carriage/fetch)",
// states the readings this package follows.
package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/store"
	"github.com/waiops/waiops/refusal"
)

// The codes of READINGS D-H3 and H4 (H10: they stand for http-delivery §13's
// reasons). set_digest_mismatch is carriage.SetDigestMismatch.
const (
	LocationUnavailable refusal.Code = "set_location_unavailable"
	CodingPresent       refusal.Code = "content_coding_present"
	RangeMismatch       refusal.Code = "content_range_mismatch"
	TooLarge            refusal.Code = "set_too_large"
)

// WellKnown is an origin's own set root's path (§15, READINGS D-H2).
const WellKnown = "/.well-known/wai-sets/"

// Defaults of a Fetcher whose fields are zero. The bound is one a desktop's
// disk holds (§18.2's largest plaintext, 2^40, is for a sink that says so).
const (
	DefaultTimeout  = 30 * time.Second
	DefaultMinRate  = 4 << 10 // bytes a second
	DefaultMaxBytes = 16 << 30
	DefaultRunBytes = 8 << 20
)

// CheckRoot applies READINGS D-H2: an absolute http or https URL, with a
// host, ending in '/'.
func CheckRoot(root string) error {
	u, err := url.Parse(root)
	if err != nil {
		return fmt.Errorf("root %q: %v", root, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !strings.HasSuffix(root, "/") || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("root %q is not an absolute http or https URL ending in '/' (docs/READINGS.md D-H2)", root)
	}
	return nil
}

// OriginRoot is an origin's well-known root, <scheme>://<host>[:<port>]
// /.well-known/wai-sets/ (READINGS D-H2), for an origin given as any
// absolute http or https URL on it.
func OriginRoot(origin string) (string, error) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("origin %q is not an absolute http or https URL", origin)
	}
	return u.Scheme + "://" + u.Host + WellKnown, nil
}

// Roots is READINGS D-H2's order: the configured roots, then the hints, then
// the origin's well-known root (none when origin is ""), each root once, its
// first occurrence kept.
func Roots(configured, hints []string, origin string) ([]string, error) {
	all := append(append([]string{}, configured...), hints...)
	if origin != "" {
		r, err := OriginRoot(origin)
		if err != nil {
			return nil, err
		}
		all = append(all, r)
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range all {
		if err := CheckRoot(r); err != nil {
			return nil, err
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out, nil
}

// Meter is what a progress display takes: the bytes held so far, added as
// they come (a *progressbar.ProgressBar is one).
type Meter interface {
	Add64(n int64) error
}

// Attempt is one root passed over, one coded response refused before its
// plain retry, or one failed attempt at a run of pieces; Err carries its
// code.
type Attempt struct {
	Kind   string // "root", "coded" or "piece"
	URL    string // the root or source as given
	Piece  int    // for "piece": the first piece
	Pieces int    // for "piece": how many, from Piece (1: that piece alone)
	Err    error
}

// Code is the attempt's refusal code.
func (a Attempt) Code() refusal.Code { return codeOf(a.Err) }

func codeOf(err error) refusal.Code {
	var r *refusal.Error
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

// Fetcher fetches sets into Store. Its zero fields take the defaults.
type Fetcher struct {
	Store    store.Store
	Client   *http.Client  // nil: a client with its own transport
	Timeout  time.Duration // per request, of slowness (see Readings); 0: DefaultTimeout
	MinRate  int64         // bytes a second each Timeout must bring; 0: DefaultMinRate; < 0: silence alone
	Deadline time.Duration // per request, for its whole transfer; 0: none
	MaxBytes uint64        // the sink's byte bound, inclusive; 0: DefaultMaxBytes
	RunBytes uint64        // the most bytes a tree's range request asks (whole pieces, one at least); 0: DefaultRunBytes
	// Report, where set, is told of each attempt that fails, as it fails.
	Report func(Attempt)
	// Progress, where set, gives a meter for a transfer of total bytes (-1
	// when unknown), or nil for none.
	Progress func(total int64) Meter
	client   atomic.Pointer[http.Client]
}

func (f *Fetcher) timeout() time.Duration {
	if f.Timeout > 0 {
		return f.Timeout
	}
	return DefaultTimeout
}

func (f *Fetcher) minRate() int64 {
	switch {
	case f.MinRate < 0:
		return 0
	case f.MinRate == 0:
		return DefaultMinRate
	}
	return f.MinRate
}

func (f *Fetcher) maxBytes() uint64 {
	if f.MaxBytes > 0 {
		return f.MaxBytes
	}
	return DefaultMaxBytes
}

// httpClient is Client, or a client of the fetcher's own, that follows no
// redirect: a 3xx is the response (H3, H4: a status other than 200 or 206).
func (f *Fetcher) httpClient() *http.Client {
	if c := f.client.Load(); c != nil {
		return c
	}
	var c http.Client
	if f.Client != nil {
		c = *f.Client
	} else {
		// No transparent gzip (the request names its codings itself, H3)
		// and enough idle connections for the pieces in flight.
		c.Transport = &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: f.timeout(), KeepAlive: 30 * time.Second}).DialContext,
			DisableCompression:  true,
			MaxIdleConnsPerHost: 32,
			IdleConnTimeout:     90 * time.Second,
		}
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	f.client.CompareAndSwap(nil, &c)
	return f.client.Load()
}

func (f *Fetcher) report(a Attempt) {
	if f.Report != nil {
		f.Report(a)
	}
}

func (f *Fetcher) meter(total int64) Meter {
	if f.Progress != nil {
		if m := f.Progress(total); m != nil {
			return m
		}
	}
	return nil
}

// codings is a response's Content-Encoding, identity left out (H3).
func codings(resp *http.Response) []string {
	var out []string
	for _, v := range resp.Header.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				out = append(out, c)
			}
		}
	}
	return out
}

// readTracker keeps its reader's error, so that a failed copy can say
// whether the response or the store failed.
type readTracker struct {
	r   io.Reader
	err error
}

func (t *readTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		t.err = err
	}
	return n, err
}

// meterWriter adds what it is written to a meter.
type meterWriter struct{ m Meter }

func (w meterWriter) Write(b []byte) (int, error) {
	w.m.Add64(int64(len(b)))
	return len(b), nil
}

// sink is where a body's bytes go: the temporary file, the hash where sum
// is not nil, and a meter where the fetcher has one for a transfer of total
// bytes.
func (f *Fetcher) sink(t *store.Temp, sum io.Writer, total int64) io.Writer {
	w := []io.Writer{newWriteback(t.File)}
	if sum != nil {
		w = append(w, sum)
	}
	if m := f.meter(total); m != nil {
		w = append(w, meterWriter{m})
	}
	if len(w) == 1 {
		return w[0]
	}
	return io.MultiWriter(w...)
}

// Fetch holds the resource d: from the store when it is there already,
// else from the first of roots that yields it (H3). With pred held, each
// root is first asked for d coded against it (§16, H5). When every root is
// passed over it refuses prior_not_held, naming each root's reason.
func (f *Fetcher) Fetch(ctx context.Context, d [32]byte, roots []string, pred *[32]byte) error {
	t, err := f.fetch(ctx, d, roots, pred)
	if err != nil || t == nil {
		return err
	}
	return t.Commit(d)
}

// fetch is Fetch up to the commit: it returns d's verified temporary file,
// for the caller to commit or discard, or nil when the store holds d.
func (f *Fetcher) fetch(ctx context.Context, d [32]byte, roots []string, pred *[32]byte) (*store.Temp, error) {
	if f.Store.Holds(d) {
		return nil, nil
	}
	var dict *os.File // §16's predecessor, which dcz.DecodeAt maps
	coded := pred != nil && *pred != d && f.Store.Holds(*pred)
	if coded {
		var err error
		if dict, err = os.Open(f.Store.Path(*pred)); err != nil {
			return nil, err
		}
		defer dict.Close()
	}
	var reasons []string
	for _, root := range roots {
		var (
			t   *store.Temp
			err error
		)
		if coded {
			var retry bool
			if t, err, retry = f.coded(ctx, root, d, *pred, dict); retry && ctx.Err() == nil {
				// H5: a refused coded response; the same root once more, plain.
				f.report(Attempt{Kind: "coded", URL: root, Err: err})
				t, err = f.plain(ctx, root, d)
			}
		} else {
			t, err = f.plain(ctx, root, d)
		}
		switch {
		case err == nil:
			return t, nil
		case ctx.Err() != nil:
			return nil, cancelled(ctx)
		case codeOf(err) == "": // the store, not the root
			return nil, err
		}
		f.report(Attempt{Kind: "root", URL: root, Err: err})
		reasons = append(reasons, fmt.Sprintf("root %s: %v", root, err))
	}
	if len(roots) == 0 {
		reasons = append(reasons, "no roots")
	}
	// H3: every root passed over; the set is not held (SPEC §3.1 check 6).
	return nil, refusal.New(carriage.PriorNotHeld, "no root yields %x: %s", d, strings.Join(reasons, "; "))
}

// plain is one fetch of d from root, H3's checks in order.
func (f *Fetcher) plain(ctx context.Context, root string, d [32]byte) (*store.Temp, error) {
	u := root + hex.EncodeToString(d[:])
	resp, err := f.get(ctx, u, http.Header{"Accept-Encoding": {"identity"}})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, refusal.New(LocationUnavailable, "%s: status %s", u, resp.Status)
	}
	if c := codings(resp); len(c) > 0 {
		return nil, refusal.New(CodingPresent, "%s: Content-Encoding %s, which the request did not offer", u, strings.Join(c, ", "))
	}
	return f.hold(u, resp, d)
}

// hold reads an identity body, at most the bound and one byte, into a
// temporary file of the store, and returns it only when its SHA-256 is d
// (H3). The body is read, hashed and written at once (copyOverlapped).
func (f *Fetcher) hold(u string, resp *http.Response, d [32]byte) (*store.Temp, error) {
	bound := f.maxBytes()
	if resp.ContentLength > store.Limit(bound) {
		return nil, refusal.New(TooLarge, "%s: Content-Length %d is past the bound of %d bytes", u, resp.ContentLength, bound)
	}
	t, err := f.Store.Create()
	if err != nil {
		return nil, err
	}
	sum := sha256.New()
	n, rerr, werr := copyOverlapped(f.sink(t, nil, resp.ContentLength), sum, resp.Body, store.Limit(bound)+1)
	switch {
	case werr != nil:
		t.Discard()
		return nil, werr
	case rerr != nil:
		t.Discard()
		return nil, refusal.New(LocationUnavailable, "%s: the body breaks off after %d bytes: %v", u, n, rerr)
	case uint64(n) > bound:
		t.Discard()
		return nil, refusal.New(TooLarge, "%s: the body runs past the bound of %d bytes", u, bound)
	}
	var got [32]byte
	sum.Sum(got[:0])
	if got != d {
		t.Discard()
		return nil, refusal.New(carriage.SetDigestMismatch, "%s: %d bytes of SHA-256 %x, not %x", u, n, got, d)
	}
	return t, nil
}

// FetchListing holds the wai.prior.set whose listing's digest is d: the
// listing, then each file it names that the store does not hold, each under
// its own digest (§15), then the set as carriage.Hold checks it, with its
// bound statement (§18.1). The listing is stored only once the set holds.
// pred, where held and a listing, lends each file of the successor the
// predecessor's file at the same path as a dcz dictionary (§16).
func (f *Fetcher) FetchListing(ctx context.Context, d [32]byte, roots []string, pred *[32]byte) (*carriage.HeldSet, error) {
	t, err := f.fetch(ctx, d, roots, pred)
	if err != nil {
		return nil, err
	}
	held, err := f.holdListing(ctx, d, t, roots, pred)
	if t == nil {
		return held, err
	}
	if err != nil {
		t.Discard()
		return nil, err
	}
	if err := t.Commit(d); err != nil {
		return nil, err
	}
	return held, nil
}

// holdListing reads the listing d, from t where it was just fetched (t nil:
// from the store), fetches its files and checks the set.
func (f *Fetcher) holdListing(ctx context.Context, d [32]byte, t *store.Temp, roots []string, pred *[32]byte) (*carriage.HeldSet, error) {
	var (
		b   []byte
		err error
	)
	if t != nil {
		b, err = readBounded(io.NewSectionReader(t, 0, math.MaxInt64), f.maxBytes())
	} else {
		b, err = f.Store.ReadFile(d, f.maxBytes())
	}
	if err != nil {
		return nil, err
	}
	l, err := carriage.ReadListing(b)
	if err != nil {
		return nil, err
	}
	before := map[string][32]byte{}
	if pred != nil && f.Store.Holds(*pred) {
		if pb, err := f.Store.ReadFile(*pred, f.maxBytes()); err == nil {
			if pl, err := carriage.ReadListing(pb); err == nil {
				for _, pf := range pl.Files {
					before[pf.Path] = pf.SHA256
				}
			}
		}
	}
	for _, file := range l.Files {
		var fp *[32]byte
		if p, ok := before[file.Path]; ok {
			fp = &p
		}
		if err := f.Fetch(ctx, file.SHA256, roots, fp); err != nil {
			var r *refusal.Error
			if errors.As(err, &r) {
				return nil, refusal.New(carriage.PriorNotHeld, "listing %x: file %s is not held: %s", d, file.Path, r.Msg)
			}
			return nil, err
		}
	}
	return carriage.Hold(b, func(lf carriage.ListedFile) (io.ReadCloser, error) { return os.Open(f.Store.Path(lf.SHA256)) })
}

// readBounded reads r whole, refusing more than max bytes without reading
// past max + 1.
func readBounded(r io.Reader, max uint64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, store.Limit(max)+1))
	if err == nil && uint64(len(b)) > max {
		err = fmt.Errorf("the listing is more than %d bytes", max)
	}
	return b, err
}
