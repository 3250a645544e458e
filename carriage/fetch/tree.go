package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
// sources: two per source, at least 4 and at most 16. Each holds a 256 KiB
// copy buffer and one 16-chunk group, never a whole piece; the in-order
// SHA-256 reads the file back through one buffer of its own (sumInOrder).
func InFlight(m int) int { return min(max(4, 2*m), 16) }

// copyBuf is each request's read buffer.
const copyBuf = 256 << 10

// span is pieces [first, end) of a set, asked in one request (§19.2 step
// 1: "one piece or several whole pieces in a request").
type span struct{ first, end int }

// FetchTree holds the set the head h names, under h.Inner, fetching its
// pieces by range from sources, each a set root (§19.2, READINGS D-H4): run k
// of consecutive pieces from source k mod m first, and each piece a source
// does not yield from each next source in turn, each piece verified as it
// arrives (tree_piece_mismatch sends it to the next source), and the whole
// set then checked against inner (tree_digest_mismatch). A piece no source
// yields leaves the set not held (prior_not_held); a head whose length is
// past the bound is set_too_large before any request.
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
	// H3's bound, on the length the head states: the temporary file is
	// sized from it, so it is checked before the file is made.
	if bound := f.maxBytes(); h.Length > bound {
		return refusal.New(TooLarge, "the head's set is %d bytes, past the bound of %d bytes", h.Length, bound)
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
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tf := &treeFetch{f: f, h: h, sources: sources, t: t, meter: f.meter(int64(h.Length)),
		verified: make(chan int, min(len(h.Values), 1<<16))}
	summed := make(chan []byte, 1)
	go func() { summed <- sumInOrder(h, t, tf.verified) }()
	workers := InFlight(len(sources))
	per := f.runPieces(h, workers)
	jobs := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error // the first piece no source yields, or a store error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, copyBuf)
			for k := range jobs {
				s := span{k * per, min((k+1)*per, len(h.Values))}
				if err := tf.fromAny(ctx, s, k%len(sources), 0, nil, buf); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
	runs := (len(h.Values) + per - 1) / per
feed:
	for k := range runs {
		select {
		case jobs <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	close(tf.verified)
	got := <-summed
	switch {
	case parent.Err() != nil:
		return cancelled(parent)
	case first != nil:
		return first
	case got == nil:
		return fmt.Errorf("tree: the held pieces could not be read back from %s", t.Name())
	case [32]byte(got) != h.Inner:
		return refusal.New(tree.DigestMismatch, "every piece verifies, but the set's SHA-256 is %x, not the head's inner %x: the head misstates its set, which is not held", got, h.Inner)
	}
	keep = true
	return t.Commit(h.Inner)
}

// runPieces is the pieces of one run: RunBytes of them, one at least, and no
// more than keep every worker busy.
func (f *Fetcher) runPieces(h *tree.Head, workers int) int {
	rb := f.RunBytes
	if rb == 0 {
		rb = DefaultRunBytes
	}
	per := max(1, rb/tree.PieceSize(h.G))
	spread := uint64((len(h.Values) + workers - 1) / workers)
	return int(max(1, min(per, spread)))
}

// treeFetch is one FetchTree's shared state.
type treeFetch struct {
	f        *Fetcher
	h        *tree.Head
	sources  []string
	t        *store.Temp
	meter    Meter
	verified chan int // each piece as it verifies
}

// fromAny asks s of source (src + a) mod m, the a-th source tried for it,
// then each piece it does not yield of the next, reasons carrying what the
// sources before said; once every source is tried, a piece none yields is
// prior_not_held (§19.2). An error of the store or the context ends it.
func (tf *treeFetch) fromAny(ctx context.Context, s span, src, a int, reasons []string, buf []byte) error {
	m := len(tf.sources)
	u := tf.sources[(src+a)%m]
	misses, err := tf.run(ctx, s, u, buf)
	if err != nil {
		return err
	}
	for _, miss := range misses {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		tf.f.report(Attempt{Kind: "piece", URL: u, Piece: miss.first, Pieces: miss.end - miss.first, Err: miss.err})
		why := append(reasons[:len(reasons):len(reasons)], fmt.Sprintf("%s: %v", u, miss.err))
		if a+1 == m {
			// SPEC §3.1 check 6: a piece no source yields; the set is not held.
			return refusal.New(carriage.PriorNotHeld, "piece %d of %x: no source yields it: %s", miss.first, tf.h.Inner, strings.Join(why, "; "))
		}
		if err := tf.fromAny(ctx, miss.span, src, a+1, why, buf); err != nil {
			return err
		}
	}
	return nil
}

// miss is a span of pieces a source did not yield, and why.
type miss struct {
	span
	err error
}

// run asks src for the pieces of s in one range request and checks the
// response as H4 says and each piece against its value (§19.2 step 2) as it
// arrives, writing it at its offset in t. It returns the spans the source
// did not yield; its error is the store's or the context's.
func (tf *treeFetch) run(ctx context.Context, s span, src string, buf []byte) ([]miss, error) {
	h := tf.h
	a, _ := h.Piece(s.first)
	lo, ln := h.Piece(s.end - 1)
	b := lo + ln - 1
	n := b - a + 1
	u := src + hex.EncodeToString(h.Inner[:])
	all := func(err error) ([]miss, error) { return []miss{{s, err}}, nil }
	// §19.2: no Available-Dictionary with a range request.
	resp, err := tf.f.get(ctx, u, http.Header{
		"Range":           {fmt.Sprintf("bytes=%d-%d", a, b)},
		"Accept-Encoding": {"identity"},
	})
	if err != nil {
		if codeOf(err) == "" {
			return nil, err
		}
		return all(err)
	}
	defer resp.Body.Close()
	// H4, in order: the status, the coding, the range, the body's length.
	switch resp.StatusCode {
	case http.StatusPartialContent:
	case http.StatusOK:
		return all(refusal.New(RangeMismatch, "%s: a range request answered 200, not 206", u))
	default:
		return all(refusal.New(LocationUnavailable, "%s: status %s", u, resp.Status))
	}
	if c := codings(resp); len(c) > 0 {
		return all(refusal.New(CodingPresent, "%s: Content-Encoding %s on a range", u, strings.Join(c, ", ")))
	}
	want := fmt.Sprintf("bytes %d-%d/%d", a, b, h.Length)
	if cr := resp.Header.Values("Content-Range"); len(cr) != 1 || cr[0] != want {
		return all(refusal.New(RangeMismatch, "%s: Content-Range %q, not %q", u, strings.Join(cr, ", "), want))
	}
	if resp.ContentLength >= 0 && uint64(resp.ContentLength) != n {
		return all(refusal.New(RangeMismatch, "%s: Content-Length %d for a range of %d bytes", u, resp.ContentLength, n))
	}
	out := &runOut{tf: tf, u: u, i: s.first, end: s.end}
	out.start()
	body := &readTracker{r: resp.Body}
	// One byte past the range is read, to tell a body that runs long.
	got, _ := io.CopyBuffer(out, io.LimitReader(body, int64(n)+1), buf)
	switch {
	case out.err != nil:
		return nil, out.err // the store
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case out.i == s.end-1 && out.left == 0 && !out.long && body.err == nil:
		out.finish() // the body ended with the range's last byte
		startWriteback(tf.t.File, int64(a), int64(n))
		return out.misses, nil
	}
	// The body broke off or ran long: the piece it was in and the rest are
	// not yielded (H4: a body that ends early or runs long, or a timeout,
	// set_location_unavailable). A body that runs long fails the run's last
	// piece, whose check waits for the body's end.
	var why error
	if errors.Is(body.err, errSilent) || errors.Is(body.err, errDeadline) {
		why = refusal.New(LocationUnavailable, "%s: %v", u, body.err)
	} else {
		why = refusal.New(RangeMismatch, "%s: the body is not the range's %d bytes (%d read, %v)", u, n, got, body.err)
	}
	return append(out.misses, miss{span{out.i, s.end}, why}), nil
}

// errLong is a range body's byte past the range.
var errLong = errors.New("a byte past the range")

// runOut takes a run's body as it arrives: each piece's bytes go to its
// check and to the file at its offset; each piece but the run's last is
// checked as its last byte arrives, the last once the body has ended.
type runOut struct {
	tf     *treeFetch
	u      string
	i, end int               // the piece being taken, and the run's end
	pw     *tree.PieceWriter // piece i's check
	off    uint64            // the file offset of the next byte
	left   uint64            // bytes of piece i still to come
	misses []miss            // pieces that did not verify
	long   bool              // the body ran past the range
	err    error             // the file's error
}

func (o *runOut) start() {
	if o.pw == nil {
		o.pw = tree.NewPieceWriter(o.tf.h, o.i)
	} else {
		o.pw.Reset(o.i)
	}
	o.off, o.left = o.tf.h.Piece(o.i)
}

// finish checks piece i: a verified piece is handed to the set's SHA-256
// and the meter; one that is not is a miss (tree_piece_mismatch, asked of
// the next source).
func (o *runOut) finish() {
	if o.pw.Verifies() {
		o.tf.verified <- o.i
		if o.tf.meter != nil {
			_, n := o.tf.h.Piece(o.i)
			o.tf.meter.Add64(int64(n))
		}
	} else {
		o.misses = append(o.misses, miss{span{o.i, o.i + 1}, refusal.New(tree.PieceMismatch,
			"%s: piece %d does not verify against its value; it is asked of the next source", o.u, o.i)})
	}
}

func (o *runOut) Write(b []byte) (int, error) {
	total := len(b)
	for len(b) > 0 {
		if o.left == 0 {
			if o.i == o.end-1 {
				o.long = true
				return total - len(b), errLong
			}
			o.finish()
			o.i++
			o.start()
		}
		seg := b[:min(uint64(len(b)), o.left)]
		o.pw.Write(seg) // within the piece: it takes every byte
		if _, err := o.tf.t.WriteAt(seg, int64(o.off)); err != nil {
			o.err = err
			return total - len(b), err
		}
		o.off += uint64(len(seg))
		o.left -= uint64(len(seg))
		b = b[len(seg):]
	}
	return total, nil
}

// sumBuf is the most bytes sumInOrder reads at once: enough to make each
// read's system call cheap beside its copy, few enough that what it reads
// is still in the cache when it is hashed.
const sumBuf = 256 << 10

// sumInOrder hashes the set's pieces in order as they are verified (the
// indices verified sends), reading them back from t, and returns the
// SHA-256 once every piece is hashed: nil when verified closes first or the
// file cannot be read. A verified piece is never written again, so the
// file holds it. The pieces verified in a row are read together, sumBuf
// bytes at a time: a read into a small buffer the hash then takes while
// it is in the cache costs less than faulting the file's pages into a
// mapping, and does not contend with the writers for the address space.
func sumInOrder(h *tree.Head, t *store.Temp, verified <-chan int) []byte {
	sum := sha256.New()
	done := make([]bool, len(h.Values))
	buf := make([]byte, sumBuf)
	var hashed uint64 // the bytes hashed, all of pieces [0, next)
	next, failed := 0, false
	for i := range verified { // drained to its close even after a failure
		done[i] = true
		for next < len(done) && done[next] {
			next++
		}
		end := h.Length
		if next < len(done) {
			end, _ = h.Piece(next)
		}
		for !failed && hashed < end {
			b := buf[:min(uint64(len(buf)), end-hashed)]
			if _, err := t.ReadAt(b, int64(hashed)); err != nil {
				failed = true
			}
			sum.Write(b)
			hashed += uint64(len(b))
		}
	}
	if failed || next < len(done) {
		return nil
	}
	return sum.Sum(nil)
}
