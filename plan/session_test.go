package plan

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// graph is relu(x · m >> 0) over a [1, 1, 4] input checked to [lo, hi],
// with one multiplier m: a rescale whose rq.p reaches hi·m.
func graph(lo, hi, m int64) []byte {
	return whg1.Encode(&whg1.Graph{
		Version: 1, OpSet: 1, MaxElems: 1 << 26,
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: 1, MaxW: 4}},
		Outputs: []uint32{2},
		Tensors: []whg1.Tensor{
			{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: lo, Hi: hi},
			{Channels: 1, Exponent: whg1.NoExponent},
			{Channels: 1, Exponent: whg1.NoExponent},
		},
		Ops: []whg1.Op{
			{Code: whg1.OpRescale, In: []uint32{0}, Out: []uint32{1}, Params: &whg1.Rescale{RQ: whg1.RQ{MKind: 1, MBytes: 8, Mult: []int64{m}, SKind: 1, Shift: []uint8{0}}}},
			{Code: whg1.OpRelu, In: []uint32{1}, Out: []uint32{2}},
		},
	})
}

// acc32Graph meets acc32: 100·3 fits i32. acc64Graph meets only acc64: its
// rescale output reaches 2^31 (2^30 · 2), one past i32.
var (
	acc32Graph = graph(-100, 100, 3)
	acc64Graph = graph(-(1 << 30), 1<<30, 2)
)

func in4(v ...int64) []*tensor.T {
	return []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 4}, Data: v}}
}

// requireGPU opens the GL fabric, as gputest.Need answers a missing one.
func requireGPU(t *testing.T) fabric.Fabric {
	t.Helper()
	g, err := fabric.OpenGPU()
	gputest.Need(t, err)
	return g
}

// hold holds b in s, parsed and certified here as a set's lowering does.
func hold(s *Session, b []byte) (*Graph, error) {
	g, cert, err := certify.Graph(b)
	if err != nil {
		return nil, err
	}
	return s.HoldCertified(g, cert)
}

func TestCPUSessionDecodes(t *testing.T) {
	s, err := NewSession(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Load(acc64Graph)
	if err != nil {
		t.Fatal(err)
	}
	if g.Fabric().Name() != "cpu" {
		t.Fatalf("fabric %s", g.Fabric().Name())
	}
	// relu(2x): [-2^30, -1, 7, 2^30] → [0, 0, 14, 2^31].
	out, err := g.Decode(in4(-(1<<30), -1, 7, 1<<30), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 0, 14, 1 << 31}; !slices.Equal(out[0].Data, want) {
		t.Fatalf("got %v, want %v", out[0].Data, want)
	}
	// The same bytes load once.
	if g2, _ := s.Load(acc64Graph); g2 != g {
		t.Fatal("second Load of the same bytes did not reuse the loaded graph")
	}
}

// fakeGL is an acc32 fabric that reports a GL renderer and computes on the
// CPU, so that auto's routing is tested with any renderer string.
type fakeGL struct {
	gputest.CPU32
	renderer string
}

func (f fakeGL) GL() gpu.Identity {
	return gpu.Identity{Vendor: "test", Renderer: f.renderer, Version: "4.6"}
}

// Under auto an acc64 graph runs on the CPU; an acc32 graph runs on the GL
// fabric unless its renderer is a software rasteriser, which the session's
// one note names.
func TestAutoRoutesByRenderer(t *testing.T) {
	for _, c := range []struct {
		renderer, fab string
	}{
		{"llvmpipe (LLVM 15.0.6, 256 bits)", "cpu"},
		{"softpipe", "cpu"},
		{"NVIDIA H200/PCIe/SSE2", "gpu"},
	} {
		s, err := newSession(fabric.Options{Fabric: fabric.Auto}, fakeGL{renderer: c.renderer}, nil)
		if err != nil {
			t.Fatal(err)
		}
		g32, err := s.Load(acc32Graph)
		if err != nil {
			t.Fatal(err)
		}
		g64, err := s.Load(acc64Graph)
		if err != nil {
			t.Fatal(err)
		}
		if g32.Fabric().Name() != c.fab || g64.Fabric().Name() != "cpu" {
			t.Errorf("%s: acc32 graph on %s, acc64 on %s; want %s, cpu", c.renderer, g32.Fabric().Name(), g64.Fabric().Name(), c.fab)
		}
		if software := c.fab == "cpu"; software != strings.Contains(s.Note(), c.renderer+" is a software rasteriser") {
			t.Errorf("%s: note %q", c.renderer, s.Note())
		}
	}
	// No GL fabric: the CPU, and the note says why.
	s, err := newSession(fabric.Options{Fabric: fabric.Auto}, nil, errors.New("gpu: no display"))
	if err != nil {
		t.Fatal(err)
	}
	if g, err := s.Load(acc32Graph); err != nil || g.Fabric().Name() != "cpu" || s.Note() != "gpu: no display; running on the CPU reference" {
		t.Fatalf("no GPU: %v, note %q", err, s.Note())
	}
}

// The real device: under Xvfb or EGL on Mesa it is llvmpipe, and auto keeps
// acc32 graphs on the CPU; on a hardware GPU it runs them there.
func TestAutoOnThisDevice(t *testing.T) {
	dev := requireGPU(t)
	renderer := dev.(glFabric).GL().Renderer
	s, err := NewSession(fabric.Options{Fabric: fabric.Auto})
	if err != nil {
		t.Fatal(err)
	}
	g32, err := s.Load(acc32Graph)
	if err != nil {
		t.Fatal(err)
	}
	want := "gpu"
	if (gpu.Identity{Renderer: renderer}).Software() {
		want = "cpu"
	}
	if g32.Fabric().Name() != want || (want == "cpu") != (s.Note() != "") {
		t.Fatalf("renderer %q: acc32 graph on %s, want %s; note %q", renderer, g32.Fabric().Name(), want, s.Note())
	}
	t.Logf("renderer %q: auto runs acc32 on %s", renderer, want)
}

func TestGPUChoice(t *testing.T) {
	requireGPU(t)
	s, err := NewSession(fabric.Options{Fabric: fabric.GPU})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Load(acc64Graph)
	var r *refusal.Error
	if !errors.As(err, &r) || r.Code != refusal.ModelMismatch {
		t.Fatalf("gpu on an acc64 graph: %v, want model_mismatch", err)
	}
	g, err := s.Load(acc32Graph)
	if err != nil {
		t.Fatal(err)
	}
	if g.Fabric().Name() != "gpu" {
		t.Fatalf("fabric %s", g.Fabric().Name())
	}
	// relu(3x) on [-100, -1, 0, 100] → [0, 0, 0, 300], as on the CPU.
	out, err := g.Decode(in4(-100, -1, 0, 100), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 0, 0, 300}; !slices.Equal(out[0].Data, want) {
		t.Fatalf("got %v, want %v", out[0].Data, want)
	}
}

func TestConcurrentCPUDecodes(t *testing.T) {
	// Run under -race in CI: one loaded graph, many goroutines.
	s, _ := NewSession(fabric.Options{Fabric: fabric.CPU})
	g, err := s.Load(acc32Graph)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := int64(i)
			out, err := g.Decode(in4(v, -v, 2*v, 0), nil)
			if err != nil {
				errs <- err
				return
			}
			if want := []int64{3 * v, 0, 6 * v, 0}; !slices.Equal(out[0].Data, want) {
				errs <- errors.New("wrong output under concurrency")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Under Hybrid every graph loads on the hybrid fabric, which decodes as the
// CPU reference does; without a GL context NewSession says why.
func TestHybridSession(t *testing.T) {
	if _, gerr := fabric.OpenGPU(); gerr != nil {
		if _, err := NewSession(fabric.Options{Fabric: fabric.Hybrid}); err == nil || err.Error() != gerr.Error() {
			t.Fatalf("NewSession(fabric.Options{Fabric: Hybrid}) without GL: %v, want %v", err, gerr)
		}
	}
	requireGPU(t)
	s, err := NewSession(fabric.Options{Fabric: fabric.Hybrid})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := graph(-100, 100, 3)
	g, err := s.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if g.Fabric().Name() != "hybrid" || g.Fabric().Profile() != certify.Acc64 {
		t.Fatalf("fabric %s (%s)", g.Fabric().Name(), g.Fabric().Profile())
	}
	id := g.Fabric().Identity()
	if id["cpu_fabric"] != "cpu" || id["gpu_fabric"] != "gpu" || id["min_work"] != "524288" {
		t.Fatalf("identity %v", id)
	}
	got, err := g.Decode(in4(3, -3, 99, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, _, err := fabric.NewCPU().Load(b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Decode(in4(3, -3, 99, 0), nil)
	if err != nil || !slices.Equal(got[0].Data, want[0].Data) {
		t.Fatalf("hybrid %v, cpu %v (%v)", got[0].Data, want[0].Data, err)
	}
}
