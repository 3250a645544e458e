package plan

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// sumGraph is clamp(x + s) with s a state input fed back from the one
// output (§10.3): x is data clamped to [-100, 100], s and the output are
// clamped to [-1000, 1000], s starts at 5, and the input is at most [1, 1,
// 4]. It meets acc32 (the sum lies in [-1100, 1100]).
var sumGraph = whg1.Encode(&whg1.Graph{
	Version: 1, OpSet: 1, MaxElems: 1 << 26,
	Inputs: []whg1.Input{
		{Tensor: 0, MaxH: 1, MaxW: 4},
		{Tensor: 1, MaxH: 1, MaxW: 4, Kind: whg1.StateInput, Src: 0, Init: 5},
	},
	Outputs: []uint32{2},
	Tensors: []whg1.Tensor{
		{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: -100, Hi: 100},
		{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: -1000, Hi: 1000},
		{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: -1000, Hi: 1000},
	},
	Ops: []whg1.Op{{Code: whg1.OpAdd, In: []uint32{0, 1}, Out: []uint32{2}}},
})

// clampTo is §3's clamp policy on one value.
func clampTo(v, lo, hi int64) int64 { return min(max(v, lo), hi) }

// mem is the heap after a collection and the GL objects live, at one point
// of a long run.
type mem struct {
	alloc, inuse uint64
	gl           gpu.Live
}

func memNow() mem {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return mem{m.HeapAlloc, m.HeapInuse, gpu.LiveObjects()}
}

func (m mem) String() string {
	return fmt.Sprintf("heap alloc %d KiB, in use %d KiB, GL programs %d, buffers %d", m.alloc>>10, m.inuse>>10, m.gl.Programs, m.gl.Buffers)
}

// Long runs: decodes through one session's two graphs, decode i doing one
// of longSteps, every output checked against its value by §3 and §10.3
// and every refusal against its code. The heap after a collection and the
// GL objects are sampled every longEvery decodes; after longWarm decodes
// the run is warm, and from then on no sample may pass the highest of the
// samples up to 2·longWarm by more than longSlack (HeapAlloc and
// HeapInuse), nor may the GL objects differ at all from the first warm
// sample: decodes hold nothing on the device between them. The noise
// measured is under 8 KiB of HeapAlloc and 32 KiB of HeapInuse; a leak of
// 32 bytes a decode (tried in guarded.Decode) passes the slack by decode
// 8,000, and one GL buffer a decode (tried in gpu's Program.run) fails at
// the first sample after warm-up.
const (
	longDecodes = 10000
	longEvery   = 500
	longWarm    = 1000
	longSlack   = 128 << 10
)

// longStep is one kind of decode of the long run.
type longStep int

const (
	seqDecode   longStep = iota // the long sequence: x + its state
	plainDecode                 // relu(3x) on acc32Graph, at width 1 to 4
	zeroSided                   // a [1, 1, 0] input: model_mismatch (§4 run step 1)
	twoInputs                   // two inputs to a one-input graph, none to the sequence: model_mismatch
	seqZero                     // the sequence given a [1, 0, 4] input: model_mismatch, no state change
	outOfCheck                  // 101 under check [-100, 100]: field_range
	freshSeq                    // a new sequence: x + 5, then x + (x + 5)
	seqTooWide                  // the sequence given a [1, 1, 5] input: too_large (max_w 4)
	longSteps
)

// longRun runs n decodes through s and returns the samples.
func longRun(t *testing.T, s *Session, fab string, n int) []mem {
	t.Helper()
	seqG, err := s.Load(sumGraph)
	if err != nil {
		t.Fatal(err)
	}
	plainG, err := s.Load(acc32Graph)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Graph{seqG, plainG} {
		if g.Fabric().Name() != fab {
			t.Fatalf("graph on %s, want %s", g.Fabric().Name(), fab)
		}
	}
	seq := seqG.Sequence()
	state := []int64{5, 5, 5, 5} // the sequence's state as §10.3 has it
	refused := func(i int, err error, code refusal.Code) {
		t.Helper()
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != code {
			t.Fatalf("decode %d: %v, want refusal %s", i, err, code)
		}
	}
	check := func(i int, out []*tensor.T, err error, shape tensor.Shape, want []int64) {
		t.Helper()
		if err != nil {
			t.Fatalf("decode %d: %v", i, err)
		}
		if len(out) != 1 || out[0].Shape != shape || !slices.Equal(out[0].Data, want) {
			t.Fatalf("decode %d: %v, want %v %v", i, out, shape, want)
		}
	}
	var samples []mem
	for i := range n {
		if i%longEvery == 0 {
			samples = append(samples, memNow())
		}
		// x in [-130, 130]: the clamp to [-100, 100] bites at both ends.
		x := []int64{int64(i%261 - 130), int64(i*7%261 - 130), int64(i*13%261 - 130), int64(i*31%261 - 130)}
		row := tensor.Shape{C: 1, H: 1, W: 4}
		switch longStep(i % int(longSteps)) {
		case seqDecode:
			out, err := seq.Decode([]*tensor.T{{Shape: row, Data: x}}, nil)
			for k := range state {
				state[k] = clampTo(clampTo(x[k], -100, 100)+state[k], -1000, 1000)
			}
			check(i, out, err, row, state)
		case plainDecode:
			w := 1 + i/int(longSteps)%4
			v := make([]int64, w)
			want := make([]int64, w)
			for k := range v {
				v[k] = clampTo(x[k], -100, 100)
				want[k] = max(3*v[k], 0)
			}
			out, err := plainG.Decode([]*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: w}, Data: v}}, nil)
			check(i, out, err, tensor.Shape{C: 1, H: 1, W: w}, want)
		case zeroSided:
			_, err := plainG.Decode([]*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 0}}}, nil)
			refused(i, err, refusal.ModelMismatch)
		case twoInputs:
			_, err := plainG.Decode(append(in4(1, 2, 3, 4), in4(1, 2, 3, 4)...), nil)
			refused(i, err, refusal.ModelMismatch)
			_, err = seq.Decode(nil, nil) // no data input: model_mismatch, no state change
			refused(i, err, refusal.ModelMismatch)
		case seqZero:
			_, err := seq.Decode([]*tensor.T{{Shape: tensor.Shape{C: 1, H: 0, W: 4}}}, nil)
			refused(i, err, refusal.ModelMismatch)
		case outOfCheck:
			_, err := plainG.Decode(in4(0, 101, 0, 0), nil)
			refused(i, err, refusal.FieldRange)
		case freshSeq:
			fresh := seqG.Sequence()
			want := make([]int64, 4)
			for k := range want {
				want[k] = clampTo(x[k], -100, 100) + 5
			}
			out, err := fresh.Decode([]*tensor.T{{Shape: row, Data: x}}, nil)
			check(i, out, err, row, want)
			for k := range want {
				want[k] += clampTo(x[k], -100, 100)
			}
			out, err = fresh.Decode([]*tensor.T{{Shape: row, Data: x}}, nil)
			check(i, out, err, row, want)
		case seqTooWide:
			_, err := seq.Decode([]*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 5}, Data: make([]int64, 5)}}, nil)
			refused(i, err, refusal.TooLarge)
		}
	}
	return append(samples, memNow())
}

// flat checks the samples of a long run as the comment on longDecodes says.
func flat(t *testing.T, fab string, samples []mem) {
	t.Helper()
	warm := longWarm / longEvery
	top := samples[warm]
	for _, m := range samples[warm : 2*warm+1] {
		top.alloc, top.inuse = max(top.alloc, m.alloc), max(top.inuse, m.inuse)
	}
	end := samples[len(samples)-1]
	t.Logf("%s: start (graphs loaded) %v; warm %v; end %v", fab, samples[0], samples[warm], end)
	for k, m := range samples[warm:] {
		at := (warm + k) * longEvery
		if m.alloc > top.alloc+longSlack || m.inuse > top.inuse+longSlack {
			t.Errorf("%s: after %d decodes %v; the warm window's highest is alloc %d KiB, in use %d KiB (slack %d KiB)",
				fab, at, m, top.alloc>>10, top.inuse>>10, longSlack>>10)
			return
		}
		if m.gl != samples[warm].gl {
			t.Errorf("%s: after %d decodes %v; warm %v", fab, at, m, samples[warm])
			return
		}
	}
}

func TestLongRunCPU(t *testing.T) {
	s, err := NewSession(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	flat(t, "cpu", longRun(t, s, "cpu", longDecodes))
}

func TestLongRunGPU(t *testing.T) {
	requireGPU(t)
	s, err := NewSession(fabric.Options{Fabric: fabric.GPU})
	if err != nil {
		t.Fatal(err)
	}
	base := gpu.LiveObjects()
	samples := longRun(t, s, "gpu", longDecodes)
	flat(t, "gpu", samples)
	// The two programs' parameter buffers, and nothing else, stay on the
	// device between decodes; Close releases them.
	if warm := samples[longWarm/longEvery].gl; warm.Programs != base.Programs+2 {
		t.Errorf("%+v live while warm, %+v before loading two graphs", warm, base)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if now := gpu.LiveObjects(); now != base {
		t.Errorf("after Close %+v, before %+v", now, base)
	}
}

// The hybrid fabric runs both graphs too, with the same checks; MinWork
// 0 places each graph's one acc32 run on the GL fabric, so two programs
// stay live on the device until Close.
func TestLongRunHybrid(t *testing.T) {
	requireGPU(t)
	s, err := NewSession(fabric.Options{Fabric: fabric.Hybrid})
	if err != nil {
		t.Fatal(err)
	}
	s.cpu.(*fabric.HybridFabric).MinWork = 0
	base := gpu.LiveObjects()
	samples := longRun(t, s, "hybrid", longDecodes)
	flat(t, "hybrid", samples)
	if warm := samples[longWarm/longEvery].gl; warm.Programs != base.Programs+2 {
		t.Errorf("%+v live while warm, %+v before loading two graphs", warm, base)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if now := gpu.LiveObjects(); now != base {
		t.Errorf("after Close %+v, before %+v", now, base)
	}
}
