package fabric

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/vectors/conform"
	"github.com/waiops/waiops/whg1"
)

// acc32Fabrics are the acc32 fabrics a hybrid test runs over: CPU32
// always, the GL fabric when there is one (requireGPU's rules).
func acc32Fabrics(t *testing.T) []Fabric {
	t.Helper()
	fs := []Fabric{gputest.CPU32{}}
	t.Run("gl", func(t *testing.T) { fs = append(fs, requireGPU(t)) })
	return fs
}

// requireGPU opens the GL fabric, as gputest.Need answers a missing one.
func requireGPU(t *testing.T) Fabric {
	t.Helper()
	g, err := OpenGPU()
	gputest.Need(t, err)
	return g
}

// in4 is one [1, 1, 4] input.
func in4(v ...int64) []*tensor.T {
	return []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 4}, Data: v}}
}

func conv1x1(cout uint32, w ...int64) *whg1.Conv {
	return &whg1.Conv{Cout: cout, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: 4,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: w}
}

func derived(c uint32) whg1.Tensor { return whg1.Tensor{Channels: c, Exponent: whg1.NoExponent} }

// mixedGraph is x [1, 1, 4] checked to [−1000, 1000], then
//
//	op 0 conv 1×1 to 2 channels, weights 3 and −2: t1 = [3x, −2x]   (acc32)
//	op 1 conv 1×1 to 1 channel, weights 2^30, 2^30: t2 = 2^30·x      (acc64: up to 1000·2^30)
//	op 2 clamp to [−2^31, 2^31 − 1]: t3                                 (fits acc32, but reads t2)
//	op 3 relu: t4                                                       (acc32)
//
// with outputs t4 and t1.
var mixedGraph = whg1.Encode(&whg1.Graph{
	Version: 1, OpSet: 1, MaxElems: 1 << 26,
	Inputs:  []whg1.Input{{Tensor: 0, MaxH: 1, MaxW: 4}},
	Outputs: []uint32{4, 1},
	Tensors: []whg1.Tensor{
		{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: -1000, Hi: 1000},
		derived(2), derived(1), derived(1), derived(1),
	},
	Ops: []whg1.Op{
		{Code: whg1.OpConv, In: []uint32{0}, Out: []uint32{1}, Params: conv1x1(2, 3, -2)},
		{Code: whg1.OpConv, In: []uint32{1}, Out: []uint32{2}, Params: conv1x1(1, 1<<30, 1<<30)},
		{Code: whg1.OpClamp, In: []uint32{2}, Out: []uint32{3}, Params: &whg1.ClampParams{Lo: math.MinInt32, Hi: math.MaxInt32}},
		{Code: whg1.OpRelu, In: []uint32{3}, Out: []uint32{4}},
	},
})

func loadHybrid(t *testing.T, gpu Fabric, minWork uint64, b []byte) *HybridProgram {
	t.Helper()
	h := NewHybrid(gpu)
	h.MinWork = minWork
	d, _, err := h.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	return d.(*HybridProgram)
}

func placement(p *HybridProgram) []Run {
	rs := p.Runs()
	for i := range rs {
		rs[i].Work, rs[i].Why = 0, ""
	}
	return rs
}

func TestHybridSplitsMixedGraph(t *testing.T) {
	for _, gpu := range acc32Fabrics(t) {
		p := loadHybrid(t, gpu, 0, mixedGraph)
		want := []Run{{First: 0, End: 1, Fabric: "gpu", Acc32: true}, {First: 1, End: 3, Fabric: "cpu"}, {First: 3, End: 4, Fabric: "gpu", Acc32: true}}
		if got := placement(p); !slices.Equal(got, want) {
			t.Fatalf("%s: runs %+v, want %+v", gpu.Identity()["fabric"], got, want)
		}
		// x = [−5, 0, 1, 1000]: t1 = [3x | −2x]; t2 = 2^30·x =
		// [−5·2^30, 0, 2^30, 1000·2^30]; clamped [−2^31, 0, 2^30, 2^31 − 1];
		// relu [0, 0, 2^30, 2^31 − 1].
		x := in4(-5, 0, 1, 1000)
		out, err := p.Decode(x, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := []int64{0, 0, 1 << 30, math.MaxInt32}; !slices.Equal(out[0].Data, want) {
			t.Fatalf("out 0 = %v, want %v", out[0].Data, want)
		}
		if want := []int64{-15, 0, 3, 3000, 10, 0, -2, -2000}; !slices.Equal(out[1].Data, want) {
			t.Fatalf("out 1 = %v, want %v", out[1].Data, want)
		}
		// A smaller decode than declared, against the CPU reference.
		small := []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 2}, Data: []int64{-1000, 999}}}
		equalsCPU(t, p, mixedGraph, small, nil)
	}
}

// equalsCPU decodes in on p and on the CPU reference and compares with ==.
func equalsCPU(t *testing.T, p whg1.Decoder, b []byte, in []*tensor.T, scalars []int64) {
	t.Helper()
	ref, _, err := NewCPU().Load(b)
	if err != nil {
		t.Fatal(err)
	}
	want, werr := ref.Decode(in, scalars)
	got, gerr := p.Decode(in, scalars)
	if conform.CodeOf(gerr) != conform.CodeOf(werr) {
		t.Fatalf("hybrid: %v; cpu: %v", gerr, werr)
	}
	if len(got) != len(want) {
		t.Fatalf("%d outputs, want %d", len(got), len(want))
	}
	for k := range want {
		if got[k].Shape != want[k].Shape || !slices.Equal(got[k].Data, want[k].Data) {
			t.Fatalf("output %d: %v %v, want %v %v", k, got[k].Shape, got[k].Data, want[k].Shape, want[k].Data)
		}
	}
}

func TestHybridThreshold(t *testing.T) {
	// op 0 forms 2 output elements × 1 tap × 4 columns = 8 MACs and op 3
	// 4 elements: a threshold of 5 keeps op 3 on the CPU, joined to ops 1–2;
	// 9 keeps everything there.
	p := loadHybrid(t, gputest.CPU32{}, 5, mixedGraph)
	want := []Run{{First: 0, End: 1, Fabric: "gpu", Acc32: true}, {First: 1, End: 4, Fabric: "cpu"}}
	if got := placement(p); !slices.Equal(got, want) {
		t.Fatalf("threshold 5: runs %+v, want %+v", got, want)
	}
	if w := p.Runs()[0].Work; w != 8 {
		t.Fatalf("op 0 work %d, want 8", w)
	}
	p = loadHybrid(t, gputest.CPU32{}, 9, mixedGraph)
	r := p.Runs()
	if len(r) != 1 || r[0].Fabric != "cpu" || r[0].First != 0 || r[0].End != 4 {
		t.Fatalf("threshold 9: runs %+v, want one CPU run of ops 0–3", r)
	}
	equalsCPU(t, p, mixedGraph, in4(7, -7, 1000, -1000), nil)
}

func TestWorkOf(t *testing.T) {
	x := tensor.Shape{C: 6, H: 5, W: 7}
	for _, c := range []struct {
		op     whg1.Op
		shapes []tensor.Shape
		want   uint64
	}{
		// conv 3×3, groups 2, cout 4, out [4, 3, 5]: 60 outputs · 3·9 taps.
		{whg1.Op{Code: whg1.OpConv, In: []uint32{0}, Out: []uint32{1}, Params: &whg1.Conv{Cout: 4, KH: 3, KW: 3, Groups: 2}},
			[]tensor.Shape{x, {C: 4, H: 3, W: 5}}, 60 * 27},
		// conv_transpose 2×3 to 5 channels: 210 inputs · 5·6.
		{whg1.Op{Code: whg1.OpConvTranspose, In: []uint32{0}, Out: []uint32{1}, Params: &whg1.ConvT{Cout: 5, KH: 2, KW: 3}},
			[]tensor.Shape{x, {C: 5, H: 10, W: 15}}, 210 * 30},
		// gram, groups 2 (d = 3): out [6, 1, 3], 18 outputs · 35 products.
		{whg1.Op{Code: whg1.OpGram, In: []uint32{0, 0}, Out: []uint32{1}, Params: &whg1.Contraction{Groups: 2}},
			[]tensor.Shape{x, {C: 6, H: 1, W: 3}}, 18 * 35},
		// apply: A [6, 1, 3], V x: 210 outputs · 3.
		{whg1.Op{Code: whg1.OpApply, In: []uint32{0, 1}, Out: []uint32{2}, Params: &whg1.Contraction{Groups: 2}},
			[]tensor.Shape{{C: 6, H: 1, W: 3}, x, x}, 210 * 3},
		// subpos_split: four outputs of [6, 2, 3].
		{whg1.Op{Code: whg1.OpSubposSplit, In: []uint32{0}, Out: []uint32{1, 2, 3, 4}, Params: &whg1.Subpos{}},
			[]tensor.Shape{x, {C: 6, H: 2, W: 3}, {C: 6, H: 2, W: 3}, {C: 6, H: 2, W: 3}, {C: 6, H: 2, W: 3}}, 4 * 36},
	} {
		if got := workOf(&c.op, c.shapes); got != c.want {
			t.Errorf("%s: work %d, want %d", c.op.Code, got, c.want)
		}
	}
	if got := mulSat(1<<40, 1<<30); got != math.MaxUint64 {
		t.Errorf("mulSat(2^40, 2^30) = %d, want saturation", got)
	}
}

// stateGraph is x [1, 1, 4] checked to [−100, 100] and a state s clamped
// to [−1000, 1000], init 7, fed by output 1:
//
//	op 0 add: t2 = x + s         (acc32)
//	op 1 conv 1×1, weight 2^40: t3 = 2^40·t2   (acc64)
//
// with outputs t3 and t2. It declares no sizes.
var stateGraph = whg1.Encode(&whg1.Graph{
	Version: 1, OpSet: 1, MaxElems: 1 << 26,
	Inputs:  []whg1.Input{{Tensor: 0}, {Tensor: 1, Kind: whg1.StateInput, Src: 1, Init: 7}},
	Outputs: []uint32{3, 2},
	Tensors: []whg1.Tensor{
		{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: -100, Hi: 100},
		{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: -1000, Hi: 1000},
		derived(1), derived(1),
	},
	Ops: []whg1.Op{
		{Code: whg1.OpAdd, In: []uint32{0, 1}, Out: []uint32{2}},
		{Code: whg1.OpConv, In: []uint32{2}, Out: []uint32{3}, Params: &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: 8,
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: []int64{1 << 40}}},
	},
})

func TestHybridSequenceCarriesState(t *testing.T) {
	for _, gpu := range acc32Fabrics(t) {
		// Undeclared sizes: the add's work is unbounded, so it goes to the GPU
		// under any threshold.
		p := loadHybrid(t, gpu, DefaultMinWork, stateGraph)
		want := []Run{{First: 0, End: 1, Fabric: "gpu", Acc32: true}, {First: 1, End: 2, Fabric: "cpu"}}
		if got := placement(p); !slices.Equal(got, want) {
			t.Fatalf("runs %+v, want %+v", got, want)
		}
		seq := whg1.NewSequence(p.g, p)
		// Decode 1: s = 7 everywhere; t2 = x + 7.
		// Decode 2: s = [8, 9, 10, 11]; t2 = [9, 10, 11, 12].
		// Decode 3 is refused (x = 101 outside the check range) and changes no
		// state, so decode 4 reads decode 2's t2: [9 − 100, 10, 11, 12 + 100]
		// = [−91, 10, 11, 112].
		for i, c := range []struct {
			x, t2 []int64
			code  refusal.Code
		}{
			{[]int64{1, 2, 3, 4}, []int64{8, 9, 10, 11}, vectors.LoadOK},
			{[]int64{1, 1, 1, 1}, []int64{9, 10, 11, 12}, vectors.LoadOK},
			{[]int64{101, 0, 0, 0}, nil, refusal.FieldRange},
			{[]int64{-100, 0, 0, 100}, []int64{-91, 10, 11, 112}, vectors.LoadOK},
		} {
			out, err := seq.Decode(in4(c.x...), nil)
			if conform.CodeOf(err) != c.code {
				t.Fatalf("decode %d: %v, want %q", i, err, c.code)
			}
			if c.code != vectors.LoadOK {
				continue
			}
			t3 := make([]int64, 4)
			for k, v := range c.t2 {
				t3[k] = v << 40
			}
			if !slices.Equal(out[1].Data, c.t2) || !slices.Equal(out[0].Data, t3) {
				t.Fatalf("decode %d: t2 %v t3 %v, want %v %v", i, out[1].Data, out[0].Data, c.t2, t3)
			}
		}
	}
}

// checkGraph is x [1, 1, 4] and y [1, 1, 4], each checked to [−100, 100]:
//
//	op 0 add: t2 = x + y                        (acc32)
//	op 1 rescale ×1, output checked to [0, 50]   (a check output: CPU)
//	op 2 relu                                    (acc32)
var checkGraph = whg1.Encode(&whg1.Graph{
	Version: 1, OpSet: 1, MaxElems: 1 << 26,
	Inputs:  []whg1.Input{{Tensor: 0, MaxH: 1, MaxW: 4}, {Tensor: 1, MaxH: 1, MaxW: 4}},
	Outputs: []uint32{4},
	Tensors: []whg1.Tensor{
		{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: -100, Hi: 100},
		{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: -100, Hi: 100},
		derived(1),
		{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: 0, Hi: 50},
		derived(1),
	},
	Ops: []whg1.Op{
		{Code: whg1.OpAdd, In: []uint32{0, 1}, Out: []uint32{2}},
		{Code: whg1.OpRescale, In: []uint32{2}, Out: []uint32{3}, Params: &whg1.Rescale{RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}}},
		{Code: whg1.OpRelu, In: []uint32{3}, Out: []uint32{4}},
	},
})

func TestHybridRefusesAsCPU(t *testing.T) {
	for _, gpu := range acc32Fabrics(t) {
		p := loadHybrid(t, gpu, 0, checkGraph)
		want := []Run{{First: 0, End: 1, Fabric: "gpu", Acc32: true}, {First: 1, End: 2, Fabric: "cpu"}, {First: 2, End: 3, Fabric: "gpu", Acc32: true}}
		if got := placement(p); !slices.Equal(got, want) {
			t.Fatalf("runs %+v, want %+v", got, want)
		}
		y3 := []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 3}, Data: []int64{0, 0, 0}}}
		for _, c := range []struct {
			name string
			in   []*tensor.T
			code refusal.Code
		}{
			{"passes", append(in4(1, 2, 3, 4), in4(5, 6, 7, 8)...), vectors.LoadOK},
			// x + y = 60 passes [0, 50]: field_range in the CPU run.
			{"check tensor", append(in4(10, 20, 30, 40), in4(0, 0, 0, 20)...), refusal.FieldRange},
			// x = 101 passes x's check: field_range before any run.
			{"check input", append(in4(101, 0, 0, 0), in4(0, 0, 0, 0)...), refusal.FieldRange},
			// y [1, 1, 3] against x [1, 1, 4]: add's shape rule at the run-time
			// plan, before x's out-of-range element is read.
			{"plan", append(in4(101, 0, 0, 0), y3...), refusal.GeometryMismatch},
			// W = 5 passes max_w 4.
			{"too large", []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 5}, Data: make([]int64, 5)}, {Shape: tensor.Shape{C: 1, H: 1, W: 5}, Data: make([]int64, 5)}}, refusal.TooLarge},
		} {
			out, err := p.Decode(c.in, nil)
			if conform.CodeOf(err) != c.code {
				t.Fatalf("%s: %v, want %q", c.name, err, c.code)
			}
			if c.code == vectors.LoadOK && !slices.Equal(out[0].Data, []int64{6, 8, 10, 12}) {
				t.Fatalf("%s: %v, want [6 8 10 12]", c.name, out[0].Data)
			}
			equalsCPU(t, p, checkGraph, c.in, nil)
		}
	}
}

func TestHybridChoice(t *testing.T) {
	if c, err := ParseChoice("hybrid"); c != Hybrid || err != nil {
		t.Fatalf("ParseChoice(hybrid) = %q, %v", c, err)
	}
	if _, gerr := OpenGPU(); gerr != nil {
		// Without a GL context the hybrid is an error with the reason.
		if _, _, err := Fabrics("hybrid"); err == nil {
			t.Fatal("Fabrics(hybrid) without GL: no error")
		}
	}
	fs, _, err := Fabrics("all")
	if err != nil || len(fs) == 0 || fs[0].Name() != "cpu" {
		t.Fatalf("Fabrics(all) = %v, %v", fs, err)
	}
	for _, f := range fs {
		if f.Name() == "hybrid" {
			t.Fatal("all includes the hybrid fabric")
		}
	}
	// auto is a Session's pick per graph, not a set of fabrics.
	if _, _, err := Fabrics("auto"); err == nil || err.Error() != `fabrics "auto": want all, cpu, gpu or hybrid` {
		t.Fatalf("Fabrics(auto): %v", err)
	}
}

// TestHybridAcc64Vectors runs every acc64 vector of the repository's corpus
// with every acc32 run on the acc32 fabric (threshold 0).
func TestHybridAcc64Vectors(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole corpus")
	}
	c, err := vectors.Project(filepath.Join("..", "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	for _, gpu := range acc32Fabrics(t) {
		h := NewHybrid(gpu)
		h.MinWork = 0
		r := conform.Run(h, c, nil)
		for _, f := range r.Failures {
			t.Errorf("%s: %s", gpu.Identity()["fabric"], f)
		}
		if r.Passed == 0 {
			t.Fatal("no acc64 vector ran")
		}
	}
}

// wideScalarGraph is relu(x) with a scalar of range [−2^40, 2^40] that no
// operator reads, and x itself as a second output. The relu fits acc32, but
// its sub-graph carries the scalar table, so it does not meet acc32 on its
// own (§7.2 condition 1) and runs on the CPU.
var wideScalarGraph = whg1.Encode(&whg1.Graph{
	Version: 1, OpSet: 1, MaxElems: 1 << 26,
	Scalars: []whg1.Scalar{{Lo: -1 << 40, Hi: 1 << 40}},
	Inputs:  []whg1.Input{{Tensor: 0, MaxH: 1, MaxW: 4}},
	Outputs: []uint32{1, 0},
	Tensors: []whg1.Tensor{{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: -9, Hi: 9}, derived(1)},
	Ops:     []whg1.Op{{Code: whg1.OpRelu, In: []uint32{0}, Out: []uint32{1}}},
})

func TestHybridFallsBackWhenRunMissesAcc32(t *testing.T) {
	for _, gpu := range acc32Fabrics(t) {
		p := loadHybrid(t, gpu, 0, wideScalarGraph)
		r := p.Runs()
		if len(r) != 1 || r[0].Fabric != "cpu" || !r[0].Acc32 || !strings.Contains(r[0].Why, "model_mismatch") {
			t.Fatalf("runs %+v, want one acc32 run on the CPU, refused by the acc32 load", r)
		}
		// x = [−20, −1, 3, 20] clamps to [−9, −1, 3, 9]; relu [0, 0, 3, 9].
		out, err := p.Decode(in4(-20, -1, 3, 20), []int64{1 << 40})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out[0].Data, []int64{0, 0, 3, 9}) || !slices.Equal(out[1].Data, []int64{-9, -1, 3, 9}) {
			t.Fatalf("outputs %v %v", out[0].Data, out[1].Data)
		}
		equalsCPU(t, p, wideScalarGraph, in4(-20, -1, 3, 20), []int64{-1 << 40})
	}
}

// A hybrid program closes its GL runs (mixedGraph has two) and then
// refuses to decode.
func TestHybridClose(t *testing.T) {
	var closes atomic.Int64
	p := loadHybrid(t, gputest.Closing{Closes: &closes}, 0, mixedGraph)
	for range 2 {
		if err := p.Close(); err != nil || closes.Load() != 2 {
			t.Fatalf("Close: %v, %d runs closed, want 2", err, closes.Load())
		}
	}
	if _, err := p.Decode(in4(1, 2, 3, 4), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("decode after Close: %v, want ErrClosed", err)
	}
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
