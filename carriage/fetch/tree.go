package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/store"
	"github.com/waiops/waiops/carriage/tree"
	"github.com/waiops/waiops/refusal"
)

// InFlight is the most range requests FetchTree has open at once for m
// sources: two per source, at least 4 and at most 16. Each holds a 64 KiB
// copy buffer and one 16-chunk group, never a whole piece; the in-order
// SHA-256 holds one buffer of at most 1 MiB.
func InFlight(m int) int { return min(max(4, 2*m), 16) }

// FetchTree holds the set the head h names, under h.Inner, fetching its
// pieces by range from sources, each a set root (§19.2, DECISIONS H4): piece
// i from source i mod m first, then from each next source in turn, each
// verified as it arrives (tree_piece_mismatch sends it to the next source),
// and the whole set then checked against inner (tree_digest_mismatch). A
// piece no source yields leaves the set not held (prior_not_held).
func (f *Fetcher) FetchTree(ctx context.Context, h *tree.Head, sources []string) error {
	if f.Store.Holds(h.Inner) {
		return nil
	}
	if len(sources) == 0 {
		return refusal.New(carriage.PriorNotHeld, "no sources for %x", h.Inner)
	}
	for _, s := range sources {
		if err := CheckRoot(s); err != nil {
			return err
		}
	}
	t, err := f.Store.Create()
	if err != nil {
		return err
	}
	keep := false
	defer func() {
		if !keep {
			t.Discard()
		}
	}()
	if err := t.Truncate(int64(h.Length)); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	meter := f.meter(int64(h.Length))
	var (
		mu    sync.Mutex
		first error // the first piece no source yields, or a store error
	)
	// §19.2 step 3 runs beside the fetch: a verified piece is never written
	// again, so the set's SHA-256 reads each piece back from the file once
	// the pieces before it are verified too.
	verified := make(chan int, InFlight(len(sources)))
	summed := make(chan []byte, 1)
	go func() { summed <- f.sumInOrder(h, t, verified) }()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range InFlight(len(sources)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			for i := range jobs {
				err := f.pieceFromAny(ctx, h, i, sources, t, buf)
				if err == nil {
					verified <- i
					if meter != nil {
						_, n := h.Piece(i)
						meter.Add64(int64(n))
					}
					continue
				}
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				cancel()
			}
		}()
	}
feed:
	for i := range h.Values {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	close(verified)
	got := <-summed
	if first != nil {
		return first
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if got == nil {
		return fmt.Errorf("tree: the held pieces could not be read back from %s", t.Name())
	}
	if [32]byte(got) != h.Inner {
		return refusal.New(tree.DigestMismatch, "every piece verifies, but the set's SHA-256 is %x, not the head's inner %x: the head misstates its set, which is not held", got, h.Inner)
	}
	keep = true
	return t.Commit(h.Inner)
}

// sumInOrder hashes the set's pieces in order as they are verified (the
// indices verified sends), reading each back from t, and returns the
// SHA-256 once every piece is hashed: nil when verified closes first or the
// file cannot be read.
func (f *Fetcher) sumInOrder(h *tree.Head, t *store.Temp, verified <-chan int) []byte {
	sum := sha256.New()
	done := make([]bool, len(h.Values))
	buf := make([]byte, min(tree.PieceSize(h.G), 1<<20))
	next, failed := 0, false
	for i := range verified {
		done[i] = true
		for !failed && next < len(done) && done[next] {
			off, n := h.Piece(next)
			if _, err := io.CopyBuffer(sum, io.NewSectionReader(t, int64(off), int64(n)), buf); err != nil {
				failed = true
			}
			next++
		}
	}
	if failed || next < len(done) {
		return nil
	}
	return sum.Sum(nil)
}

// pieceFromAny asks piece i of each source in turn from source i mod m
// (§19.2); a source that yields nothing is reported and the next asked.
func (f *Fetcher) pieceFromAny(ctx context.Context, h *tree.Head, i int, sources []string, t *store.Temp, buf []byte) error {
	m := len(sources)
	var reasons []string
	for a := range m {
		src := sources[(i+a)%m]
		err := f.piece(ctx, h, i, src, t, buf)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if codeOf(err) == "" { // the store, not the source
			return err
		}
		f.report(Attempt{Kind: "piece", URL: src, Piece: i, Err: err})
		reasons = append(reasons, fmt.Sprintf("%s: %v", src, err))
	}
	// SPEC §3.1 check 6: a piece no source yields; the set is not held.
	return refusal.New(carriage.PriorNotHeld, "piece %d of %x: no source yields it: %s", i, h.Inner, strings.Join(reasons, "; "))
}

// piece asks src for piece i by range, checks the response as H4 says and
// the piece against its value (§19.2 step 2) as it arrives, writing it at
// its offset in t.
func (f *Fetcher) piece(ctx context.Context, h *tree.Head, i int, src string, t *store.Temp, buf []byte) error {
	off, n := h.Piece(i)
	a, b := off, off+n-1
	u := src + hex.EncodeToString(h.Inner[:])
	// §19.2: no Available-Dictionary with a range request.
	resp, err := f.get(ctx, u, http.Header{
		"Range":           {fmt.Sprintf("bytes=%d-%d", a, b)},
		"Accept-Encoding": {"identity"},
	})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// H4, in order: the status, the coding, the range, the body's length.
	switch resp.StatusCode {
	case http.StatusPartialContent:
	case http.StatusOK:
		return refusal.New(RangeMismatch, "%s: a range request answered 200, not 206", u)
	default:
		return refusal.New(LocationUnavailable, "%s: status %s", u, resp.Status)
	}
	if c := codings(resp); len(c) > 0 {
		return refusal.New(CodingPresent, "%s: Content-Encoding %s on a range", u, strings.Join(c, ", "))
	}
	want := fmt.Sprintf("bytes %d-%d/%d", a, b, h.Length)
	if cr := resp.Header.Values("Content-Range"); len(cr) != 1 || cr[0] != want {
		return refusal.New(RangeMismatch, "%s: Content-Range %q, not %q", u, strings.Join(cr, ", "), want)
	}
	if resp.ContentLength >= 0 && uint64(resp.ContentLength) != n {
		return refusal.New(RangeMismatch, "%s: Content-Length %d for a range of %d bytes", u, resp.ContentLength, n)
	}
	pw := tree.NewPieceWriter(h, i)
	// The piece writer takes no byte past the piece, and takes each before
	// the file does, so a long body writes nothing past the piece's range.
	out := &pieceOut{pw: pw, file: io.NewOffsetWriter(t, int64(off))}
	body := &readTracker{r: resp.Body}
	got, err := io.CopyBuffer(out, io.LimitReader(body, int64(n)+1), buf)
	switch {
	case out.err != nil:
		return err // the store
	case body.err == errSilent:
		return refusal.New(LocationUnavailable, "%s: %v", u, errSilent)
	case out.long || body.err != nil || uint64(got) != n:
		return refusal.New(RangeMismatch, "%s: the body is not the range's %d bytes (%d read, %v)", u, n, got, body.err)
	}
	if !pw.Verifies() {
		return refusal.New(tree.PieceMismatch, "%s: piece %d does not verify against its value; it is asked of the next source", u, i)
	}
	return nil
}

// pieceOut writes a range's bytes to the piece's check and then to the
// file at the piece's offset.
type pieceOut struct {
	pw   *tree.PieceWriter
	file io.Writer
	long bool  // the body ran past the piece
	err  error // the file's error
}

func (o *pieceOut) Write(b []byte) (int, error) {
	if _, err := o.pw.Write(b); err != nil {
		o.long = true
		return 0, err
	}
	n, err := o.file.Write(b)
	o.err = err
	return n, err
}
