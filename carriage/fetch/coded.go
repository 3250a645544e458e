package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/dcz"
	"github.com/waiops/waiops/carriage/store"
	"github.com/waiops/waiops/refusal"
)

// boundedWriter refuses a write that would take its bytes past the bound
// (H5: decoded bytes past the sink's bound are set_too_large).
type boundedWriter struct {
	w     io.Writer
	left  uint64
	bound uint64
	u     string
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if uint64(len(p)) > b.left {
		return 0, refusal.New(TooLarge, "%s: the decoded bytes run past the bound of %d bytes", b.u, b.bound)
	}
	b.left -= uint64(len(p))
	return b.w.Write(p)
}

// cappedReader reads at most left bytes of r and marks a read past them:
// a coded body's own bytes are bounded too (H3: a body past the bound),
// since a frame of empty blocks decodes to nothing however long it runs.
type cappedReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		c.over = true
		return 0, errCapped
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

var errCapped = errors.New("the coded body runs past the bound")

// coded is one fetch of d from root naming pred, held in the file dict, as
// an available dictionary (§16, READINGS D-H5); it returns d's verified
// temporary file, uncommitted. retry reports a coded response refused by
// one of H5's checks after the coding, which the caller follows with a
// plain fetch of the same root.
func (f *Fetcher) coded(ctx context.Context, root string, d, pred [32]byte, dict *os.File) (t *store.Temp, err error, retry bool) {
	u := root + hex.EncodeToString(d[:])
	resp, err := f.get(ctx, u, http.Header{
		"Accept-Encoding":      {"dcz, identity"},
		"Available-Dictionary": {":" + base64.StdEncoding.EncodeToString(pred[:]) + ":"},
	})
	if err != nil {
		return nil, err, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, refusal.New(LocationUnavailable, "%s: status %s", u, resp.Status), false
	}
	switch c := codings(resp); {
	case len(c) == 0:
		t, err := f.hold(u, resp, d)
		return t, err, false
	case len(c) > 1 || c[0] != "dcz":
		// H5: a coding the request did not list passes the root over.
		return nil, refusal.New(CodingPresent, "%s: Content-Encoding %s; the request listed dcz and identity", u, strings.Join(c, ", ")), false
	}
	bound := f.maxBytes()
	if resp.ContentLength > store.Limit(bound) {
		return nil, refusal.New(TooLarge, "%s: a coded Content-Length %d is past the bound of %d bytes", u, resp.ContentLength, bound), true
	}
	t, err = f.Store.Create()
	if err != nil {
		return nil, err, false
	}
	sum := sha256.New()
	bw := &boundedWriter{w: f.sink(t, sum, -1), left: bound, bound: bound, u: u}
	body := &cappedReader{r: resp.Body, left: store.Limit(bound)}
	// H5's checks on the coded body, in order: the header, its hash, the
	// window, one frame that decodes; the bound as decoded bytes arrive.
	st, err := dict.Stat()
	if err != nil {
		t.Discard()
		return nil, err, false
	}
	if err := dcz.DecodeAt(body, dict, st.Size(), pred, bw); err != nil {
		t.Discard()
		if body.over {
			return nil, refusal.New(TooLarge, "%s: the coded body runs past the bound of %d bytes", u, bound), true
		}
		var r *refusal.Error
		if errors.As(err, &r) {
			switch r.Code {
			case dcz.Malformed, dcz.DictionaryMismatch, dcz.WindowTooLarge, TooLarge:
				return nil, refusal.New(r.Code, "%s: %s", u, r.Msg), true
			}
		}
		// A body that breaks off before its 40-byte header can be read.
		return nil, refusal.New(LocationUnavailable, "%s: %v", u, err), false
	}
	var got [32]byte
	sum.Sum(got[:0])
	if got != d {
		t.Discard()
		// H5: the decoding is another set; the root is passed over.
		return nil, refusal.New(carriage.SetDigestMismatch, "%s: the dcz decoding has SHA-256 %x, not %x", u, got, d), false
	}
	return t, nil, false
}
