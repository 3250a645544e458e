package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/dcz"
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

// coded is one fetch of d from root naming pred, whose bytes are dict, as
// an available dictionary (§16, DECISIONS H5). retry reports a coded
// response refused by one of H5's checks after the coding, which the caller
// follows with a plain fetch of the same root.
func (f *Fetcher) coded(ctx context.Context, root string, d, pred [32]byte, dict []byte) (err error, retry bool) {
	u := root + hex.EncodeToString(d[:])
	resp, err := f.get(ctx, u, http.Header{
		"Accept-Encoding":      {"dcz, identity"},
		"Available-Dictionary": {":" + base64.StdEncoding.EncodeToString(pred[:]) + ":"},
	})
	if err != nil {
		return err, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return refusal.New(LocationUnavailable, "%s: status %s", u, resp.Status), false
	}
	switch c := codings(resp); {
	case len(c) == 0:
		return f.hold(u, resp, d), false
	case len(c) > 1 || c[0] != "dcz":
		// H5: a coding the request did not list passes the root over.
		return refusal.New(CodingPresent, "%s: Content-Encoding %s; the request listed dcz and identity", u, strings.Join(c, ", ")), false
	}
	t, err := f.Store.Create()
	if err != nil {
		return err, false
	}
	sum := sha256.New()
	bound := f.maxBytes()
	bw := &boundedWriter{w: f.sink(t, sum, -1), left: bound, bound: bound, u: u}
	// H5's checks on the coded body, in order: the header, its hash, the
	// window, one frame that decodes; the bound as decoded bytes arrive.
	if err := dcz.Decode(resp.Body, dict, pred, bw); err != nil {
		t.Discard()
		var r *refusal.Error
		if errors.As(err, &r) {
			switch r.Code {
			case dcz.Malformed, dcz.DictionaryMismatch, dcz.WindowTooLarge, TooLarge:
				return refusal.New(r.Code, "%s: %s", u, r.Msg), true
			}
		}
		// A body that breaks off before its 40-byte header can be read.
		return refusal.New(LocationUnavailable, "%s: %v", u, err), false
	}
	var got [32]byte
	sum.Sum(got[:0])
	if got != d {
		t.Discard()
		// H5: the decoding is another set; the root is passed over.
		return refusal.New(carriage.SetDigestMismatch, "%s: the dcz decoding has SHA-256 %x, not %x", u, got, d), false
	}
	return t.Commit(d), false
}
