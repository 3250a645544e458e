package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// A decode marks its graph used: with MaxGraphs 2, graphs 1 and 2 loaded
// and graph 1 decoded, the third load evicts graph 2, the least recently
// used, though graph 1 loaded first.
func TestCacheRefreshesOnUse(t *testing.T) {
	s, err := newSession(fabric.Options{Fabric: fabric.CPU, MaxGraphs: 2}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	g1, _ := s.Load(graph(-100, 100, 1))
	g2, _ := s.Load(graph(-100, 100, 2))
	if _, err := g1.Decode(in4(1, 2, 3, 4), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(graph(-100, 100, 3)); err != nil {
		t.Fatal(err)
	}
	if _, err := g2.Decode(in4(1, 2, 3, 4), nil); !errors.Is(err, fabric.ErrClosed) {
		t.Fatalf("graph 2 after the third load: %v, want ErrClosed", err)
	}
	// relu(x · 1) on [-1, 2, 3, 4] → [0, 2, 3, 4].
	if out, err := g1.Decode(in4(-1, 2, 3, 4), nil); err != nil || !slices.Equal(out[0].Data, []int64{0, 2, 3, 4}) {
		t.Fatalf("graph 1, used last: %v, %v", out, err)
	}
}

// A held graph is never evicted: three held graphs under MaxGraphs 2 (a set
// with more roles than the cap) all decode after 20 more loads, which
// evict only graphs nobody holds; once released, a held graph goes like
// any other.
func TestHeldGraphsStay(t *testing.T) {
	s, err := newSession(fabric.Options{Fabric: fabric.CPU, MaxGraphs: 2}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var held []*Graph
	for m := int64(1); m <= 3; m++ {
		g, err := hold(s, graph(-100, 100, m))
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, g)
	}
	for m := int64(10); m < 30; m++ {
		if _, err := s.Load(graph(-100, 100, m)); err != nil {
			t.Fatal(err)
		}
	}
	for i, g := range held {
		m := int64(i + 1)
		out, err := g.Decode(in4(-1, 2, 3, 4), nil)
		if err != nil || !slices.Equal(out[0].Data, []int64{0, 2 * m, 3 * m, 4 * m}) {
			t.Fatalf("held graph %d: %v, %v", m, out, err)
		}
	}
	s.Release(held[0])
	for m := int64(30); m < 33; m++ {
		s.Load(graph(-100, 100, m))
	}
	if _, err := held[0].Decode(in4(1, 2, 3, 4), nil); !errors.Is(err, fabric.ErrClosed) {
		t.Fatalf("released graph after more loads: %v, want ErrClosed", err)
	}
}

// losingGL is a hardware GL fabric whose decoders answer gpu.ErrLost once
// lost is set, as the gpu package does after a reset or a destroyed
// context.
type losingGL struct {
	gputest.CPU32
	lost *atomic.Bool
}

func (losingGL) GL() gpu.Identity { return gpu.Identity{Renderer: "test GPU"} }

func (f losingGL) Load(b []byte) (whg1.Decoder, *whg1.Graph, error) {
	if f.lost.Load() {
		return nil, nil, fmt.Errorf("%w: test", gpu.ErrLost)
	}
	dec, g, err := f.CPU32.Load(b)
	return losing{dec, f.lost}, g, err
}

func (f losingGL) LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error) {
	if f.lost.Load() {
		return nil, fmt.Errorf("%w: test", gpu.ErrLost)
	}
	dec, err := f.CPU32.LoadCertified(g, cert)
	return losing{dec, f.lost}, err
}

type losing struct {
	whg1.Decoder
	lost *atomic.Bool
}

func (l losing) Decode(in []*tensor.T, sc []int64) ([]*tensor.T, error) {
	if l.lost.Load() {
		return nil, fmt.Errorf("%w: the device was reset (test)", gpu.ErrLost)
	}
	return l.Decoder.Decode(in, sc)
}

// Under Auto a GPU loss mid-run re-routes: every decode in flight and
// after it gets the right outputs from the CPU reference, the graph's
// fabric is the CPU, the note names the loss, and a later load goes to the
// CPU. Under GPU the loss is the answer.
func TestAutoReroutesAfterLoss(t *testing.T) {
	var lost atomic.Bool
	s, err := newSession(fabric.Options{Fabric: fabric.Auto}, losingGL{lost: &lost}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Unmeasured (TestAutoMeasures measures): a measured graph whose
	// route is the CPU never meets the loss.
	s.routes = nil
	g, err := s.Load(acc32Graph)
	if err != nil || g.Fabric().Name() != "gpu" {
		t.Fatalf("before the loss: %v on %v", err, g.Fabric())
	}
	want, err := g.Decode(in4(-1, 2, 3, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	lost.Store(true)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seq := g.Sequence()
			for range 10 {
				out, err := seq.Decode(in4(-1, 2, 3, 4), nil)
				if err != nil || !slices.Equal(out[0].Data, want[0].Data) {
					errs <- fmt.Errorf("after the loss: %v, %v; want %v", out, err, want[0].Data)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if g.Fabric().Name() != "cpu" || !strings.Contains(s.Note(), "GL context is lost") {
		t.Fatalf("after the loss: fabric %s, note %q", g.Fabric().Name(), s.Note())
	}
	if g2, err := s.Load(graph(-100, 100, 7)); err != nil || g2.Fabric().Name() != "cpu" {
		t.Fatalf("a load after the loss: %v on %v", err, g2.Fabric())
	}

	lost.Store(false)
	s, _ = newSession(fabric.Options{Fabric: fabric.GPU}, losingGL{lost: &lost}, nil)
	g, _ = s.Load(acc32Graph)
	lost.Store(true)
	if _, err := g.Decode(in4(-1, 2, 3, 4), nil); !errors.Is(err, gpu.ErrLost) {
		t.Fatalf("under GPU after the loss: %v, want ErrLost", err)
	}
}

// The session's one cache keeps each graph's parse and certificate beside
// its programs and no longer: loading the same bytes again reuses them,
// and after 50 distinct graphs under MaxGraphs 2 it holds two of each.
func TestOneCache(t *testing.T) {
	s, err := newSession(fabric.Options{Fabric: fabric.CPU, MaxGraphs: 2}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	g1, _ := s.Load(graph(-100, 100, 1))
	again, _ := s.Load(graph(-100, 100, 1))
	if again != g1 || again.Model != g1.Model {
		t.Fatal("the same bytes parsed twice")
	}
	for m := int64(2); m < 52; m++ {
		if _, err := s.Load(graph(-100, 100, m)); err != nil {
			t.Fatal(err)
		}
	}
	if n, p := len(s.loaded.models), s.loaded.order.Len(); n != 2 || p != 2 {
		t.Fatalf("the cache holds %d models and %d programs, want 2 and 2", n, p)
	}
}
