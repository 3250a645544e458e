package plan

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// closingGL is an acc32 fabric on a "hardware" renderer whose decoders
// count their Close, so eviction is seen without a GL context.
type closingGL struct {
	cpu32
	closes *atomic.Int64
}

func (closingGL) GL() gpu.Identity { return gpu.Identity{Renderer: "test GPU"} }

func (f closingGL) Load(b []byte) (whg1.Decoder, *whg1.Graph, error) {
	dec, g, err := f.cpu32.Load(b)
	if err != nil {
		return nil, nil, err
	}
	return &countingCloser{dec, f.closes}, g, nil
}

func (f closingGL) LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error) {
	dec, err := f.cpu32.LoadCertified(g, cert)
	if err != nil {
		return nil, err
	}
	return &countingCloser{dec, f.closes}, nil
}

type countingCloser struct {
	whg1.Decoder
	n *atomic.Int64
}

func (c *countingCloser) Close() error { c.n.Add(1); return nil }

// MaxGraphs 2: the third graph evicts the least recently loaded, whose
// decoder is closed and whose Graph then refuses to decode; Close closes the
// rest once, and a Load after it is ErrClosed.
func TestSessionEvictsAndCloses(t *testing.T) {
	var closes atomic.Int64
	s, err := newSession(Auto, closingGL{closes: &closes}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	s.MaxGraphs = 2
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
	if _, err := g2.Decode(in4(1, 2, 3, 4), nil); !errors.Is(err, ErrClosed) {
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
	if _, err := g1.Decode(in4(1, 2, 3, 4), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("decode after Close: %v, want ErrClosed", err)
	}
	if _, err := s.Load(graph(-100, 100, 4)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Load after Close: %v, want ErrClosed", err)
	}
}

// A hybrid program closes its GL runs (mixedGraph has two) and then
// refuses to decode.
func TestHybridClose(t *testing.T) {
	var closes atomic.Int64
	p := loadHybrid(t, closingGL{closes: &closes}, 0, mixedGraph)
	for range 2 {
		if err := p.Close(); err != nil || closes.Load() != 2 {
			t.Fatalf("Close: %v, %d runs closed, want 2", err, closes.Load())
		}
	}
	if _, err := p.Decode(in4(1, 2, 3, 4), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("decode after Close: %v, want ErrClosed", err)
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
			derived(256), derived(256),
		},
		Ops: []whg1.Op{
			{Code: whg1.OpConv, In: []uint32{0}, Out: []uint32{1}, Params: conv1x1(256, w...)},
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
func thousandGraphs(t *testing.T, choice Choice, fabric string) {
	s, err := NewSession(choice)
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
		if g.Fabric().Name() != fabric {
			t.Fatalf("graph %d on %s, want %s", i, g.Fabric().Name(), fabric)
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
		if n := gpu.LiveObjects().Programs - base.Programs; n > DefaultMaxGraphs {
			t.Fatalf("after %d loads %d programs live on the device, over %d", i+1, n, DefaultMaxGraphs)
		}
		if i == 299 {
			full = heapAfterGC()
		}
	}
	last := heapAfterGC()
	live := gpu.LiveObjects()
	t.Logf("%s: heap %d KiB after 300 graphs, %d KiB after 1000; GL programs %d, buffers %d over the start",
		fabric, full>>10, last>>10, live.Programs-base.Programs, live.Buffers-base.Buffers)
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

func TestThousandGraphsCPU(t *testing.T) { thousandGraphs(t, CPU, "cpu") }

func TestThousandGraphsGPU(t *testing.T) {
	requireGPU(t)
	thousandGraphs(t, GPU, "gpu")
}

// On the GL device a hybrid program's two GL runs are two live programs
// until Close releases them.
func TestHybridCloseOnDevice(t *testing.T) {
	dev := requireGPU(t)
	base := gpu.LiveObjects()
	p := loadHybrid(t, dev, 0, mixedGraph)
	if n := gpu.LiveObjects().Programs - base.Programs; n != 2 {
		t.Fatalf("%d programs live after loading two GL runs", n)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if now := gpu.LiveObjects(); now != base {
		t.Fatalf("after Close the device holds %+v, before the load %+v", now, base)
	}
}

// Decodes racing an eviction each give the right outputs or ErrClosed,
// never a crash (run under -race in CI).
func TestEvictionDuringDecodes(t *testing.T) {
	var closes atomic.Int64
	s, err := newSession(Auto, closingGL{closes: &closes}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	s.MaxGraphs = 1
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
				case errors.Is(err, ErrClosed):
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
	if _, err := g.Decode(in4(1, 2, 3, 4), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("evicted graph: %v, want ErrClosed", err)
	}
}
