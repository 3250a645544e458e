package fetch

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/waiops/waiops/refusal"
)

// The ways a request is cut off (READINGS D-H3: "no answer comes within the
// fetcher's timeout"; H4: "a timeout"); each is set_location_unavailable.
var (
	errSilent   = errors.New("the response fell silent or below the minimum rate within the timeout")
	errDeadline = errors.New("the response did not end within the deadline")
)

// watch holds one request to the fetcher's time limits: each window of d,
// the first counted from the request's start, must bring at least need
// bytes of the body (1 byte: silence alone; see Readings), and the request
// must end by its deadline, where it has one.
type watch struct {
	d      time.Duration
	need   int64
	got    atomic.Int64 // body bytes in the current window
	timer  *time.Timer
	fired  atomic.Bool // a window brought fewer than need bytes
	closed atomic.Bool
	req    context.Context // the request's own context
	parent context.Context // the caller's
	cancel context.CancelFunc
}

// windowNeed is the bytes a window of d must bring at rate bytes a second:
// rate · d, at least 1 (silence), never wrapping.
func windowNeed(rate int64, d time.Duration) int64 {
	ms := d.Milliseconds()
	if rate <= 0 || ms <= 0 {
		return 1
	}
	if rate > math.MaxInt64/ms {
		return math.MaxInt64
	}
	return max(1, rate*ms/1000)
}

func (w *watch) tick() {
	if w.closed.Load() {
		return
	}
	if w.got.Swap(0) < w.need {
		w.fired.Store(true)
		w.cancel()
		return
	}
	w.timer.Reset(w.d)
}

// cause is err as the watch explains it: the caller's cancellation, a
// window too slow, the deadline, or err itself.
func (w *watch) cause(err error) error {
	switch {
	case w.parent.Err() != nil:
		return cancelled(w.parent)
	case w.fired.Load():
		return errSilent
	case errors.Is(w.req.Err(), context.DeadlineExceeded):
		return errDeadline
	}
	return err
}

// cancelled is the error of a fetch whose caller's context ended: it wraps
// the context's error (context.Canceled on an interrupt) and its cause
// (what signal.NotifyContext says, say), and is no refusal.
func cancelled(ctx context.Context) error {
	return &cancelError{ctx.Err(), context.Cause(ctx)}
}

type cancelError struct{ err, cause error }

func (e *cancelError) Error() string   { return "the fetch was cancelled: " + e.cause.Error() }
func (e *cancelError) Unwrap() []error { return []error{e.err, e.cause} }

// watchedBody is a response body whose reads count into its request's
// watch.
type watchedBody struct {
	rc io.ReadCloser
	w  *watch
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.w.got.Add(int64(n))
	if err != nil && err != io.EOF {
		err = b.w.cause(err)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.closed.Store(true)
	b.w.timer.Stop()
	err := b.rc.Close()
	b.w.cancel()
	return err
}

// get sends a GET for u with hdr under the fetcher's time limits; a request
// that fails, is cut off or is not answered is set_location_unavailable
// (H3, H4), and one whose caller's context ends is cancelled(ctx).
func (f *Fetcher) get(ctx context.Context, u string, hdr http.Header) (*http.Response, error) {
	w := &watch{d: f.timeout(), need: windowNeed(f.minRate(), f.timeout()), parent: ctx}
	if f.Deadline > 0 {
		w.req, w.cancel = context.WithTimeout(ctx, f.Deadline)
	} else {
		w.req, w.cancel = context.WithCancel(ctx)
	}
	// The first window covers the wait for the headers too: need counts
	// body bytes only, so the headers and the first need bytes must come
	// within d.
	w.timer = time.AfterFunc(w.d, w.tick)
	req, err := http.NewRequestWithContext(w.req, http.MethodGet, u, nil)
	if err != nil {
		w.timer.Stop()
		w.cancel()
		return nil, err
	}
	req.Header = hdr
	resp, err := f.httpClient().Do(req)
	if err != nil {
		w.closed.Store(true)
		w.timer.Stop()
		w.cancel()
		if ctx.Err() != nil {
			return nil, cancelled(ctx)
		}
		return nil, refusal.New(LocationUnavailable, "%s: %v", u, w.cause(err))
	}
	resp.Body = &watchedBody{resp.Body, w}
	return resp, nil
}
