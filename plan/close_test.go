package plan

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// MaxGraphs 2: the third graph evicts the least recently loaded, whose
// decoder is closed and whose Graph then refuses to decode; Close closes the
// rest once, and a Load after it is ErrClosed.
func TestSessionEvictsAndCloses(t *testing.T) {
	var closes atomic.Int64
	s, err := newSession(fabric.Options{Fabric: fabric.Auto, MaxGraphs: 2}, gputest.Closing{Closes: &closes}, nil)
	if err != nil {
		t.Fatal(err)
	}
	load := func(m int64) *Graph {
		t.Helper()
		g, err := s.Load(graph(-100, 100, m))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g1, g2 := load(1), load(2)
	if load(1) != g1 { // a hit makes g1 the most recent, so g2 goes next
		t.Fatal("the same bytes loaded twice")
	}
	g3 := load(3)
	if closes.Load() != 1 {
		t.Fatalf("%d decoders closed after the third load, want 1", closes.Load())
	}
	if _, err := g2.Decode(in4(1, 2, 3, 4), nil); !errors.Is(err, fabric.ErrClosed) {
		t.Fatalf("evicted graph: %v, want ErrClosed", err)
	}
	// relu(x · 3) on [-1, 2, 3, 4] → [0, 6, 9, 12]: g1 and g3 still decode.
	for _, g := range []*Graph{g1, g3} {
		out, err := g.Sequence().Decode(in4(-1, 2, 3, 4), nil)
		if err != nil {
			t.Fatal(err)
		}
		m := int64(1)
		if g == g3 {
			m = 3
		}
		if want := []int64{0, 2 * m, 3 * m, 4 * m}; !slices.Equal(out[0].Data, want) {
			t.Fatalf("got %v, want %v", out[0].Data, want)
		}
	}
	for range 2 {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if closes.Load() != 3 {
			t.Fatalf("%d decoders closed after Close, want 3", closes.Load())
		}
	}
	if _, err := g1.Decode(in4(1, 2, 3, 4), nil); !errors.Is(err, fabric.ErrClosed) {
		t.Fatalf("decode after Close: %v, want ErrClosed", err)
	}
	if _, err := s.Load(graph(-100, 100, 4)); !errors.Is(err, fabric.ErrClosed) {
		t.Fatalf("Load after Close: %v, want ErrClosed", err)
	}
}

// wideGraph is relu(conv 1×1 from 1 to 256 channels) over a [1, 1, 4]
// input clamped to [-100 - i, 100], its weights in [-100, 100] drawn from
// i: each i < 2^20 is a distinct graph with 256 weights of 4 bytes, and it
// meets acc32 (2^20 · 100 fits i32).
func wideGraph(i int) []byte {
	w := make([]int64, 256)
	for k := range w {
		w[k] = int64((i*7+k*13)%201 - 100)
	}
	return whg1.Encode(&whg1.Graph{
		Version: 1, OpSet: 1, MaxElems: 1 << 26,
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: 1, MaxW: 4}},
		Outputs: []uint32{2},
		Tensors: []whg1.Tensor{
			{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: int64(-100 - i), Hi: 100},
			{Channels: 256, Exponent: whg1.NoExponent}, {Channels: 256, Exponent: whg1.NoExponent},
		},
		Ops: []whg1.Op{
			{Code: whg1.OpConv, In: []uint32{0}, Out: []uint32{1}, Params: &whg1.Conv{Cout: 256, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: 4,
				RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: w}},
			{Code: whg1.OpRelu, In: []uint32{1}, Out: []uint32{2}},
		},
	})
}

func heapAfterGC() uint64 { return memNow().alloc }

// thousandGraphs loads 1,000 distinct graphs through one session and
// requires the heap after garbage collection, and the GL objects, to stay
// bounded: the heap after the last load within 1 MiB of the heap once both
// the session's cache (64) and the certifier's (256) are full, where
// keeping every graph adds about 13 KiB each on the CPU (measured with the
// bound lifted: 5.1 MiB after 300 graphs, 14.2 MiB after 1000); at most
// DefaultMaxGraphs programs live on the device; and none once the session
// is closed.
func thousandGraphs(t *testing.T, choice fabric.Choice, want string) {
	s, err := NewSession(fabric.Options{Fabric: choice})
	if err != nil {
		t.Fatal(err)
	}
	base := gpu.LiveObjects()
	var full uint64
	x := []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 4}, Data: []int64{-100, -1, 1, 100}}}
	for i := range 1000 {
		g, err := s.Load(wideGraph(i))
		if err != nil {
			t.Fatal(err)
		}
		if g.Fabric().Name() != want {
			t.Fatalf("graph %d on %s, want %s", i, g.Fabric().Name(), want)
		}
		if i%100 == 0 {
			// Channel k is relu(w_k · x); check channel 0 on x = 100.
			out, err := g.Decode(x, nil)
			if err != nil {
				t.Fatal(err)
			}
			if w0 := int64((i*7)%201 - 100); out[0].Data[3] != max(100*w0, 0) {
				t.Fatalf("graph %d: channel 0 at x = 100 is %d, want %d", i, out[0].Data[3], max(100*w0, 0))
			}
		}
		if n := gpu.LiveObjects().Programs - base.Programs; n > fabric.DefaultMaxGraphs {
			t.Fatalf("after %d loads %d programs live on the device, over %d", i+1, n, fabric.DefaultMaxGraphs)
		}
		if i == 299 {
			full = heapAfterGC()
		}
	}
	last := heapAfterGC()
	live := gpu.LiveObjects()
	t.Logf("%s: heap %d KiB after 300 graphs, %d KiB after 1000; GL programs %d, buffers %d over the start",
		want, full>>10, last>>10, live.Programs-base.Programs, live.Buffers-base.Buffers)
	if last > full+1<<20 {
		t.Errorf("heap grew from %d to %d bytes over the last 700 graphs", full, last)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if now := gpu.LiveObjects(); now != base {
		t.Errorf("after Close the device holds %+v, at the start %+v", now, base)
	}
}

func TestThousandGraphsCPU(t *testing.T) { thousandGraphs(t, fabric.CPU, "cpu") }

func TestThousandGraphsGPU(t *testing.T) {
	requireGPU(t)
	thousandGraphs(t, fabric.GPU, "gpu")
}

// Decodes racing an eviction each give the right outputs or ErrClosed,
// never a crash (run under -race in CI).
func TestEvictionDuringDecodes(t *testing.T) {
	var closes atomic.Int64
	s, err := newSession(fabric.Options{Fabric: fabric.Auto, MaxGraphs: 1}, gputest.Closing{Closes: &closes}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Load(graph(-100, 100, 5))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for range 50 {
				out, err := g.Decode(in4(1, -1, 2, 20), nil)
				switch {
				case errors.Is(err, fabric.ErrClosed):
					errs <- nil
					return
				case err != nil:
					errs <- err
					return
				case !slices.Equal(out[0].Data, []int64{5, 0, 10, 100}):
					errs <- errors.New("wrong output while the graph was evicted")
					return
				}
			}
			errs <- nil
		}()
	}
	for m := range int64(20) {
		if _, err := s.Load(graph(-100, 100, m+6)); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if _, err := g.Decode(in4(1, 2, 3, 4), nil); !errors.Is(err, fabric.ErrClosed) {
		t.Fatalf("evicted graph: %v, want ErrClosed", err)
	}
}
