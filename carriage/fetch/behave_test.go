package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/dcz"
	"github.com/waiops/waiops/carriage/tree"
)

// bounded is a context that ends a test's fetch that would otherwise run
// on (the fault under test not caught), so that it fails rather than hangs.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestNoRedirect: a root (a source) that redirects to one holding the set is
// passed over for its status (H3, H4), and the target is never asked.
func TestNoRedirect(t *testing.T) {
	s, h := treeSet(t)
	d := sha256.Sum256(s)
	target := newHolder(s)
	to := server(t, target)
	redirects := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to+strings.TrimPrefix(r.URL.Path, WellKnown), http.StatusFound)
	}))
	f, rec := newFetcher(t)
	if err := f.Fetch(context.Background(), d, []string{redirects}, nil); code(err) != carriage.PriorNotHeld {
		t.Fatalf("Fetch = %v, want prior_not_held", err)
	}
	if want := []string{"root " + redirects + ": set_location_unavailable"}; !reflect.DeepEqual(rec.got, want) {
		t.Errorf("reports %v, want %v", rec.got, want)
	}
	// A caller's own client is held to it too.
	f2, _ := newFetcher(t)
	f2.Client = &http.Client{}
	if err := f2.Fetch(context.Background(), d, []string{redirects}, nil); code(err) != carriage.PriorNotHeld {
		t.Fatalf("Fetch with a client = %v, want prior_not_held", err)
	}
	f3, _ := newFetcher(t)
	if err := f3.FetchTree(context.Background(), h, []string{redirects}); code(err) != carriage.PriorNotHeld {
		t.Fatalf("FetchTree = %v, want prior_not_held", err)
	}
	if len(target.asked) != 0 {
		t.Errorf("the redirect's target was asked %v", target.asked)
	}
	heldOnly(t, f.Store)
	heldOnly(t, f3.Store)
}

// trickle serves n bytes of s at one byte every 10 ms (100 B/s) after its
// headers, which state the whole length.
func trickle(s []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(s)))
		for i := range s {
			if _, err := w.Write(s[i : i+1]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	})
}

// TestMinRate: a body that is never silent for the timeout but brings 100
// B/s, under a minimum rate of 1000 B/s, is cut off
// (set_location_unavailable) within a few timeouts; with silence alone it
// would take 50 s.
func TestMinRate(t *testing.T) {
	s := set(5000, 41)
	d := sha256.Sum256(s)
	slow := server(t, trickle(s))
	f, rec := newFetcher(t)
	f.Timeout, f.MinRate = 200*time.Millisecond, 1000 // 200 bytes each 200 ms
	if err := f.Fetch(bounded(t), d, []string{slow}, nil); code(err) != carriage.PriorNotHeld {
		t.Fatalf("Fetch = %v, want prior_not_held", err)
	}
	if want := []string{"root " + slow + ": set_location_unavailable"}; !reflect.DeepEqual(rec.got, want) {
		t.Errorf("reports %v, want %v", rec.got, want)
	}
	heldOnly(t, f.Store)
	// windowNeed: rate · d, at least one byte, saturating.
	for _, c := range []struct {
		rate int64
		d    time.Duration
		want int64
	}{{1000, 200 * time.Millisecond, 200}, {0, time.Second, 1}, {1, time.Millisecond, 1}, {4096, 30 * time.Second, 122880}, {1 << 62, time.Hour, 1<<63 - 1}} {
		if got := windowNeed(c.rate, c.d); got != c.want {
			t.Errorf("windowNeed(%d, %v) = %d, want %d", c.rate, c.d, got, c.want)
		}
	}
}

// TestDeadline: a body that is never silent for the timeout is cut off at
// the deadline, for a whole fetch and for a range.
func TestDeadline(t *testing.T) {
	s, h := treeSet(t)
	d := sha256.Sum256(s)
	slow := server(t, trickle(s))
	f, rec := newFetcher(t)
	f.Timeout, f.MinRate, f.Deadline = 2*time.Second, -1, 500*time.Millisecond // silence alone would not cut it
	if err := f.Fetch(bounded(t), d, []string{slow}, nil); code(err) != carriage.PriorNotHeld || !strings.Contains(err.Error(), errDeadline.Error()) {
		t.Fatalf("Fetch = %v, want prior_not_held past the deadline", err)
	}
	if want := []string{"root " + slow + ": set_location_unavailable"}; !reflect.DeepEqual(rec.got, want) {
		t.Errorf("reports %v, want %v", rec.got, want)
	}
	heldOnly(t, f.Store)
	// A range whose 1024 bytes take 10 s: piece 0 from the slow source is
	// cut at the deadline and yielded by the other.
	slowRange := server(t, &fault{h: newHolder(s), change: func(p int, w http.ResponseWriter, r *http.Request) bool {
		if p != 0 {
			return false
		}
		w.Header().Set("Content-Range", "bytes 0-1023/5632")
		w.WriteHeader(http.StatusPartialContent)
		trickleBody(w, r, s[:1024])
		return true
	}})
	f2, rec2 := newFetcher(t)
	f2.Timeout, f2.MinRate, f2.Deadline = 2*time.Second, -1, 500*time.Millisecond
	if err := f2.FetchTree(bounded(t), h, []string{slowRange, server(t, newHolder(s))}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"piece 0 " + slowRange + ": set_location_unavailable"}; !reflect.DeepEqual(rec2.got, want) {
		t.Errorf("reports %v, want %v", rec2.got, want)
	}
	heldOnly(t, f2.Store, s)
}

func trickleBody(w http.ResponseWriter, r *http.Request, b []byte) {
	for i := range b {
		if _, err := w.Write(b[i : i+1]); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestDefaultBound: the default bound is 16 GiB: a Content-Length of 2^34
// + 1 is set_too_large before a byte is read; a head of that length is
// refused before any request or file; fetch-tree's bound is MaxBytes too.
func TestDefaultBound(t *testing.T) {
	if DefaultMaxBytes != 1<<34 {
		t.Fatalf("DefaultMaxBytes = %d, want 2^34", uint64(DefaultMaxBytes))
	}
	var asked atomic.Int32
	huge := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Length", strconv.FormatUint(1<<34+1, 10))
		w.WriteHeader(http.StatusOK)
	}))
	f, rec := newFetcher(t)
	var d [32]byte
	if err := f.Fetch(context.Background(), d, []string{huge}, nil); code(err) != carriage.PriorNotHeld {
		t.Fatalf("Fetch = %v", err)
	}
	if want := []string{"root " + huge + ": set_too_large"}; !reflect.DeepEqual(rec.got, want) {
		t.Errorf("reports %v, want %v", rec.got, want)
	}
	s, h := treeSet(t)
	big := *h
	big.Length = 1<<34 + 1
	asked.Store(0)
	if err := f.FetchTree(context.Background(), &big, []string{huge}); code(err) != TooLarge {
		t.Errorf("FetchTree of 2^34 + 1 bytes = %v, want set_too_large", err)
	}
	f.MaxBytes = uint64(len(s)) - 1
	if err := f.FetchTree(context.Background(), h, []string{huge}); code(err) != TooLarge {
		t.Errorf("FetchTree past MaxBytes = %v, want set_too_large", err)
	}
	if asked.Load() != 0 {
		t.Errorf("a head past the bound made %d requests", asked.Load())
	}
	heldOnly(t, f.Store)
	f.MaxBytes = uint64(len(s)) // inclusive
	if err := f.FetchTree(context.Background(), h, []string{server(t, newHolder(s))}); err != nil {
		t.Errorf("FetchTree of exactly MaxBytes: %v", err)
	}
}

// meterTotal counts the bytes a fetch writes to its store.
type meterTotal struct{ n atomic.Int64 }

func (m *meterTotal) Add64(n int64) error { m.n.Add(n); return nil }

// TestCodedBomb: a 64 KiB-ish dcz body that decodes to 64 MiB of zeros,
// against a bound of 1 MiB, is set_too_large with no more than the bound
// written (the decoded bytes counted as they come, H5), then asked plain;
// and a coded body of empty blocks that never ends is set_too_large once
// its own bytes pass the bound.
func TestCodedBomb(t *testing.T) {
	pred, succ := generations()
	pd, sd := sha256.Sum256(pred), sha256.Sum256(succ)
	var bomb bytes.Buffer
	bomb.Write(dcz.Magic[:])
	bomb.Write(pd[:])
	enc, _ := zstd.NewWriter(&bomb, zstd.WithEncoderDictRaw(0, pred), zstd.WithWindowSize(8<<20), zstd.WithEncoderConcurrency(1))
	enc.Write(make([]byte, 64<<20))
	enc.Close()
	if bomb.Len() > 64<<10 {
		t.Fatalf("the bomb is %d bytes", bomb.Len())
	}
	srv := &coder{pred: pred, succ: succ, body: bomb.Bytes(), coding: "dcz"}
	root := server(t, srv)
	f, rec := newFetcher(t)
	f.MaxBytes = 1 << 20
	m := &meterTotal{}
	f.Progress = func(int64) Meter { return m }
	if err := writeHeld(f.Store, pred); err != nil {
		t.Fatal(err)
	}
	if err := f.Fetch(bounded(t), sd, []string{root}, &pd); err != nil {
		t.Fatal(err) // the plain retry yields the successor, 300 000 bytes
	}
	if want := []string{"coded " + root + ": set_too_large"}; !reflect.DeepEqual(rec.got, want) {
		t.Errorf("reports %v, want %v", rec.got, want)
	}
	if got := m.n.Load(); got > 1<<20+int64(len(succ)) {
		t.Errorf("%d bytes written: the decoded bytes ran past the bound of 2^20", got)
	}
	heldOnly(t, f.Store, pred, succ)

	// Endless empty raw blocks (3 bytes each, none marked last).
	endless := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Available-Dictionary") == "" {
			w.Write(succ)
			return
		}
		w.Header().Set("Content-Encoding", "dcz")
		w.Write(bomb.Bytes()[:dcz.HeaderSize])
		w.Write([]byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x58}) // frame magic, descriptor, a 2 MiB window
		empty := make([]byte, 3*4096)
		for r.Context().Err() == nil {
			if _, err := w.Write(empty); err != nil {
				return
			}
		}
	}))
	f2, rec2 := newFetcher(t)
	f2.MaxBytes = 1 << 20
	if err := writeHeld(f2.Store, pred); err != nil {
		t.Fatal(err)
	}
	if err := f2.Fetch(bounded(t), sd, []string{endless}, &pd); err != nil {
		t.Fatal(err)
	}
	if want := []string{"coded " + endless + ": set_too_large"}; !reflect.DeepEqual(rec2.got, want) {
		t.Errorf("reports %v, want %v", rec2.got, want)
	}
	heldOnly(t, f2.Store, pred, succ)
}

// TestPredecessorMapped: a small successor coded against a 24 MiB
// predecessor is fetched without reading the predecessor into the heap
// (§16's dictionary is mapped from the store): what it allocates is the
// decoder's window and small buffers.
func TestPredecessorMapped(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no mapping here: the predecessor is read whole")
	}
	pred := set(24<<20, 42)
	succ := bytes.Clone(pred[len(pred)-(64<<10):])
	succ[100] ^= 1
	pd, sd := sha256.Sum256(pred), sha256.Sum256(succ)
	srv := &coder{pred: pred, succ: succ, body: encodeDcz(t, pred, succ), coding: "dcz"}
	root := server(t, srv)
	f, rec := newFetcher(t)
	if err := writeHeld(f.Store, pred); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := f.Fetch(context.Background(), sd, []string{root}, &pd); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(rec.got) != 0 || !reflect.DeepEqual(srv.asked, []string{"coded"}) {
		t.Fatalf("reports %v, asked %v", rec.got, srv.asked)
	}
	// The decoder's one large allocation is its history, the frame's
	// window (at most dcz.WindowLimit of the predecessor); a predecessor
	// read into the heap would come on top of it.
	if alloc, most := after.TotalAlloc-before.TotalAlloc, dcz.WindowLimit(uint64(len(pred)))+8<<20; alloc > most {
		t.Errorf("the fetch allocated %d bytes against a predecessor of %d (at most %d: the window and 8 MiB)", alloc, len(pred), most)
	}
}

// TestCancelled: a fetch whose context is cancelled mid-body returns an
// error wrapping context.Canceled, no refusal, reports nothing and leaves
// no temporary file: whole, coded and by range.
func TestCancelled(t *testing.T) {
	s, h := treeSet(t)
	d := sha256.Sum256(s)
	pred, succ := generations()
	pd, sd := sha256.Sum256(pred), sha256.Sum256(succ)
	coded := encodeDcz(t, pred, succ)
	started := make(chan struct{}, 8)
	// stalls sends the first half of what it is asked, then waits.
	stalls := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := s
		if r.Header.Get("Available-Dictionary") != "" {
			body = coded
			w.Header().Set("Content-Encoding", "dcz")
		}
		if rg := r.Header.Get("Range"); rg != "" {
			var a, b int
			fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(s)))
			w.WriteHeader(http.StatusPartialContent)
			body = s[a : b+1]
		}
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		started <- struct{}{}
		<-r.Context().Done()
	}))
	for _, c := range []struct {
		name  string
		fetch func(ctx context.Context, f *Fetcher) error
		held  [][]byte
	}{
		{"whole", func(ctx context.Context, f *Fetcher) error { return f.Fetch(ctx, d, []string{stalls}, nil) }, nil},
		{"coded", func(ctx context.Context, f *Fetcher) error {
			if err := writeHeld(f.Store, pred); err != nil {
				t.Fatal(err)
			}
			return f.Fetch(ctx, sd, []string{stalls}, &pd)
		}, [][]byte{pred}},
		{"by range", func(ctx context.Context, f *Fetcher) error {
			return f.FetchTree(ctx, h, []string{stalls, stalls})
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, rec := newFetcher(t)
			f.RunBytes = 8 << 10 // one run: one request
			ctx, cancel := context.WithCancel(bounded(t))
			go func() { <-started; cancel() }()
			err := c.fetch(ctx, f)
			if !errors.Is(err, context.Canceled) || code(err) != "" {
				t.Fatalf("err = %v (code %q), want context.Canceled and no refusal", err, code(err))
			}
			if len(rec.got) != 0 {
				t.Errorf("reports %v", rec.got)
			}
			heldOnly(t, f.Store, c.held...)
		})
	}
}

// TestTreeRuns asks pieces two to a request (RunBytes 2 KiB): runs 0 and
// 2 (pieces 0-1, 4-5) of a, run 1 (pieces 2-3) of b; a piece of a run that
// does not verify is asked alone of the next source, and the rest of a run
// whose body breaks off is asked as a run.
func TestTreeRuns(t *testing.T) {
	s, h := treeSet(t)
	whole := &fault{h: newHolder(s)}
	a := server(t, whole)
	for _, c := range []struct {
		name    string
		change  func(w http.ResponseWriter) // b's answer to run 1
		reports []string                    // with B for b
		asked   []string                    // of a
	}{
		{"whole", nil, nil, []string{"bytes=0-2047", "bytes=4096-5631"}},
		{"a byte changed in piece 3", func(w http.ResponseWriter) {
			bad := bytes.Clone(s[2048:4096])
			bad[1024+100] ^= 1
			w.Header().Set("Content-Range", "bytes 2048-4095/5632")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(bad)
		}, []string{"piece 3 B: tree_piece_mismatch"}, []string{"bytes=0-2047", "bytes=3072-4095", "bytes=4096-5631"}},
		{"breaks off in piece 2", func(w http.ResponseWriter) {
			w.Header().Set("Content-Range", "bytes 2048-4095/5632")
			w.Header().Set("Content-Length", "2048")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(s[2048 : 2048+300])
		}, []string{"pieces 2-3 B: content_range_mismatch"}, []string{"bytes=0-2047", "bytes=2048-4095", "bytes=4096-5631"}},
		{"breaks off in piece 3", func(w http.ResponseWriter) {
			w.Header().Set("Content-Range", "bytes 2048-4095/5632")
			w.Header().Set("Content-Length", "2048")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(s[2048 : 3072+300])
		}, []string{"piece 3 B: content_range_mismatch"}, []string{"bytes=0-2047", "bytes=3072-4095", "bytes=4096-5631"}},
		{"runs long", func(w http.ResponseWriter) {
			// The run's last piece waits for the body's end, which runs long.
			w.Header().Set("Content-Range", "bytes 2048-4095/5632")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(s[2048:4097])
		}, []string{"piece 3 B: content_range_mismatch"}, []string{"bytes=0-2047", "bytes=3072-4095", "bytes=4096-5631"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, rec := newFetcher(t)
			f.RunBytes = 2 << 10
			whole.ranges = nil
			other := &fault{h: newHolder(s), change: func(p int, w http.ResponseWriter, r *http.Request) bool {
				if p != 2 || c.change == nil {
					return false
				}
				c.change(w)
				return true
			}}
			b := server(t, other)
			if err := f.FetchTree(context.Background(), h, []string{a, b}); err != nil {
				t.Fatal(err)
			}
			heldOnly(t, f.Store, s)
			var want []string
			for _, r := range c.reports {
				want = append(want, strings.ReplaceAll(r, "B", b))
			}
			if !reflect.DeepEqual(rec.got, want) {
				t.Errorf("reports %v, want %v", rec.got, want)
			}
			slices.Sort(whole.ranges)
			if !reflect.DeepEqual(whole.ranges, c.asked) || !reflect.DeepEqual(other.ranges, []string{"bytes=2048-4095"}) {
				t.Errorf("a asked %v, want %v; b asked %v", whole.ranges, c.asked, other.ranges)
			}
		})
	}
	// runPieces: RunBytes of whole pieces, one at least, spread over the
	// workers.
	big := &tree.Head{G: 10, Values: make([][32]byte, 256)}
	for _, c := range []struct {
		run     uint64
		workers int
		want    int
	}{{0, 4, 8}, {1, 4, 1}, {64 << 20, 4, 64}, {64 << 20, 16, 16}} {
		if got := (&Fetcher{RunBytes: c.run}).runPieces(big, c.workers); got != c.want {
			t.Errorf("runPieces(RunBytes %d, %d workers) = %d, want %d", c.run, c.workers, got, c.want)
		}
	}
}
